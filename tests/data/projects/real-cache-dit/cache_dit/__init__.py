try:
  from ._version import version as __version__, version_tuple
except ImportError:
  __version__ = "unknown version"
  version_tuple = (0, 0, "unknown version")

from .envs import ENV

if ENV.CACHE_DIT_ENABLE_LOGGERS_SUPPRESS:  # Default is False (0)
  # Prefer to supppress loggers globally for better readability,
  from .logger import (
    globally_suppress_loggers,
    suppress_torch_compile_loggers,
  )

  globally_suppress_loggers()
  suppress_torch_compile_loggers()

from .logger import init_logger
from .utils import disable_print
from .utils import maybe_empty_cache
from .utils import parse_extra_modules
from .caching import load_options  # deprecated
from .caching import load_cache_config
from .caching import load_parallelism_config
from .caching import load_quantize_config
from .caching import load_attn_backend_config
from .caching import load_configs
from .caching import enable_cache
from .caching import refresh_context
from .caching import steps_mask
from .caching import disable_cache
from .attention import set_attn_backend
from .caching import cache_type
from .caching import block_range
from .caching import CacheType
from .caching import BlockAdapter
from .caching import ParamsModifier
from .caching import ForwardPattern
from .caching import PatchFunctor
from .caching import BasicCacheConfig
from .caching import DBCacheConfig
from .caching import DBPruneConfig
from .caching import CalibratorConfig
from .caching import TaylorSeerCalibratorConfig
from .caching import FoCaCalibratorConfig
from .caching import DMDCalibratorConfig
from .caching import supported_pipelines
from .caching import get_adapter
from .caching import BlockAdapterRegister
from .distributed import ParallelismBackend
from .distributed import ParallelismConfig
from .compile import set_compile_configs
from .summary import supported_matrix
from .summary import summary
from .summary import strify
from .profiler import ProfilerContext
from .profiler import profile_function
from .profiler import create_profiler_context
from .profiler import get_profiler_output_dir
from .profiler import set_profiler_output_dir
from .quantization import load
from .quantization import quantize
from .quantization import QuantizeConfig
from .quantization import QuantizeBackend
from .offload import LayerwiseOffloadHandle
from .offload import LayerwiseOffloadHandleGroup
from .offload import get_layerwise_offload_handles
from .offload import layerwise_offload
from .offload import layerwise_cpu_offload
from .offload import remove_layerwise_offload

NONE = CacheType.NONE
DBCache = CacheType.DBCache
DBPrune = CacheType.DBPrune

Pattern_0 = ForwardPattern.Pattern_0
Pattern_1 = ForwardPattern.Pattern_1
Pattern_2 = ForwardPattern.Pattern_2
Pattern_3 = ForwardPattern.Pattern_3
Pattern_4 = ForwardPattern.Pattern_4
Pattern_5 = ForwardPattern.Pattern_5
