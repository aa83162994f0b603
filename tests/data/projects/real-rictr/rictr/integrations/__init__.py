from .huggingface import HFOutputAdapter, hf_to_dict
from .accelerate import AcceleratedDistiller

__all__ = [
    "HFOutputAdapter",
    "hf_to_dict",
    "AcceleratedDistiller",
]

