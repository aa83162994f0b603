from deepinv.distributed.strategies.distributed_strategies import (
    DistributedSignalStrategy,
    create_strategy,
)

__all__ = [
    "DistributedSignalStrategy",
    "create_strategy",
]
