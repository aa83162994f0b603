from .boft import boft_bypass_diff, boft_diff_weight
from .diag_oft import diag_oft_bypass_diff, diag_oft_diff_weight
from .dora import apply_dora
from .dylora import dylora_diff_weight
from .full import full_diff_weight
from .glora import glora_diff_weight
from .ia3 import ia3_bypass, ia3_diff_weight
from .locon import locon_bypass_diff, locon_diff_weight
from .loha import loha_bypass_diff, loha_diff_weight
from .lokr import (
    lokr_bypass_diff,
    lokr_diff_weight,
    lokr_kron_bypass,
    lokr_kron_weight,
)
from .norms import norm_diff_weights

__all__ = [
    "apply_dora",
    "boft_bypass_diff",
    "boft_diff_weight",
    "diag_oft_bypass_diff",
    "diag_oft_diff_weight",
    "dylora_diff_weight",
    "full_diff_weight",
    "glora_diff_weight",
    "ia3_bypass",
    "ia3_diff_weight",
    "locon_bypass_diff",
    "locon_diff_weight",
    "loha_bypass_diff",
    "loha_diff_weight",
    "lokr_bypass_diff",
    "lokr_diff_weight",
    "lokr_kron_bypass",
    "lokr_kron_weight",
    "norm_diff_weights",
]
