from .fuse.optimizer import fuse_optimizer  # noqa: F401
from .load_balancing_data_loader import (  # noqa: F401
    LoadBalancingDistributedSampler,
    LoadBalancingDistributedBatchSampler,
)
from .cache_loader import CacheLoader  # noqa: F401
from .cached_dataset import CachedDataset  # noqa: F401
