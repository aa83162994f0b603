r"""Optimization helpers that `torch.optim` does not ship."""

from .bn_momentum import BNMomentumScheduler, bn_momentum, set_bn_momentum
from .param_groups import generate_param_groups
from .schedulers import CosineWarmupLR, PolyLR

__all__ = [
    "BNMomentumScheduler",
    "CosineWarmupLR",
    "PolyLR",
    "bn_momentum",
    "generate_param_groups",
    "set_bn_momentum",
]
