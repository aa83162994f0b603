from .dist import (
    all_reduce_mean,
    barrier,
    cleanup_distributed,
    init_distributed,
    is_distributed,
    is_main_process,
    local_rank,
    rank,
    unwrap,
    world_size,
)
from .seed import seed_everything, worker_init_fn

__all__ = [
    "all_reduce_mean",
    "barrier",
    "cleanup_distributed",
    "init_distributed",
    "is_distributed",
    "is_main_process",
    "local_rank",
    "rank",
    "seed_everything",
    "unwrap",
    "world_size",
    "worker_init_fn",
]
