from .attention_ops import compute_mha, mha, slice_mha
from .exact_attention import ExactSelfAttention

SELFATT_LOOKUP = {
    "exact": ExactSelfAttention,
}

__all__ = [
    "ExactSelfAttention",
    "mha",
    "slice_mha",
    "compute_mha",
    "SELFATT_LOOKUP",
]
