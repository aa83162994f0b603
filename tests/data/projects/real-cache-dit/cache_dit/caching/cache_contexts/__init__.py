from .calibrators import (
  Calibrator,
  CalibratorBase,
  CalibratorConfig,
  TaylorSeerCalibratorConfig,
  FoCaCalibratorConfig,
  DMDCalibratorConfig,
)
from .cache_config import (
  BasicCacheConfig,
  DBCacheConfig,
)
from .cache_context import (
  CachedContext, )
from .cache_manager import (
  CachedContextManager,
  ContextNotExistError,
)
from .prune_config import DBPruneConfig
from .prune_context import (
  PrunedContext, )
from .prune_manager import (
  PrunedContextManager, )
from .context_manager import (
  ContextManager, )
