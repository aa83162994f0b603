from .cache_types import CacheType
from .cache_types import cache_type
from .cache_types import block_range

from .forward_pattern import ForwardPattern
from .params_modifier import ParamsModifier
from .patch_functors import PatchFunctor

from .block_adapters import BlockAdapter
from .block_adapters import BlockAdapterRegister
from .block_adapters import FakeDiffusionPipeline

from .cache_contexts import BasicCacheConfig
from .cache_contexts import DBCacheConfig
from .cache_contexts import CachedContext
from .cache_contexts import CachedContextManager
from .cache_contexts import DBPruneConfig
from .cache_contexts import PrunedContext
from .cache_contexts import PrunedContextManager
from .cache_contexts import ContextManager
from .cache_contexts import CalibratorConfig
from .cache_contexts import TaylorSeerCalibratorConfig
from .cache_contexts import FoCaCalibratorConfig
from .cache_contexts import DMDCalibratorConfig

from .cache_blocks import CachedBlocks
from .cache_blocks import PrunedBlocks
from .cache_blocks import UnifiedBlocks

from .cache_adapters import CachedAdapter

from .cache_interface import enable_cache
from .cache_interface import refresh_context
from .cache_interface import disable_cache
from .cache_interface import supported_pipelines
from .cache_interface import get_adapter
from .cache_interface import steps_mask

from .load_configs import load_options  # deprecated
from .load_configs import load_cache_config
from .load_configs import load_parallelism_config
from .load_configs import load_quantize_config
from .load_configs import load_attn_backend_config
from .load_configs import load_configs
