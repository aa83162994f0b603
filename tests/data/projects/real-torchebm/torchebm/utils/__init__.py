r"""Utility functions for TorchEBM."""

from .ema import EMA
from .training import (
    update_ema,
    requires_grad,
    save_checkpoint,
    load_checkpoint,
)
from .profiling import profile_context
from .distributed import (
    is_distributed,
    get_rank,
    get_world_size,
    all_gather_cat,
    broadcast_object,
    broadcast_tensor,
    unsharded,
)

__all__ = [
    "EMA",
    "update_ema",
    "requires_grad",
    "save_checkpoint",
    "load_checkpoint",
    "profile_context",
    "is_distributed",
    "get_rank",
    "get_world_size",
    "all_gather_cat",
    "broadcast_object",
    "broadcast_tensor",
    "unsharded",
]
