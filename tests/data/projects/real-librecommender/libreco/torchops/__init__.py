from .configs import device_config, hidden_units_config, set_torch_seed
from .loss import (
    binary_cross_entropy_loss,
    bpr_loss,
    compute_pair_scores,
    focal_loss,
    max_margin_loss,
    pairwise_bce_loss,
    pairwise_focal_loss,
)
from .rebuild import rebuild_torch_model

__all__ = [
    "binary_cross_entropy_loss",
    "bpr_loss",
    "compute_pair_scores",
    "device_config",
    "hidden_units_config",
    "focal_loss",
    "max_margin_loss",
    "pairwise_bce_loss",
    "pairwise_focal_loss",
    "rebuild_torch_model",
    "set_torch_seed",
]
