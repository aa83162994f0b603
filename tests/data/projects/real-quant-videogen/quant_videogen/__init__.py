from .compress import compress_kv_cache, get_quantize_fn, get_quantize_type
from .uncompress import uncompress_kv_cache
from .kv_cache import ChunkedKVCache, offload_kv_cache_layer, onload_kv_cache_layer
from .sim.quant.quantize_config import QuantizeConfig
from .timer import TimeLoggingContext, time_logging_decorator
from .logger import logger
