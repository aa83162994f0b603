from .backend import ParallelismBackend
from .config import ParallelismConfig
from .dispatch import enable_parallelism
from .dispatch import remove_parallelism_stats

__all__ = [
  "ParallelismBackend",
  "ParallelismConfig",
  "enable_parallelism",
  "remove_parallelism_stats",
]
