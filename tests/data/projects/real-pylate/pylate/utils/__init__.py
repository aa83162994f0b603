from __future__ import annotations

from .collator import ColBERTCollator
from .distributed import all_gather, all_gather_with_gradients, get_rank, get_world_size
from .huggingface_models import HUGGINGFACE_MODELS
from .iter_batch import iter_batch
from .multi_process import _start_multi_process_pool
from .processing import KDProcessing
from .tensor import convert_to_tensor

__all__ = [
    "HUGGINGFACE_MODELS",
    "iter_batch",
    "convert_to_tensor",
    "ColBERTCollator",
    "KDProcessing",
    "_start_multi_process_pool",
    "all_gather",
    "all_gather_with_gradients",
    "get_rank",
    "get_world_size",
]
