from deepinv.distributed.framework import DistributedContext
from deepinv.distributed.distribute import distribute

__all__ = [
    "DistributedContext",
    "distribute",
]
