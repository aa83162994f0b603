"""
MoE layers.
"""

from .loss import MoELoadBalancingLossGranularity
from .mlp import DroplessMoEMLP, MoEMLP
from .moe import DroplessMoE, MoEBase, MoEConfig, MoEType
from .router import (
    MoELinearRouter,
    MoERouter,
    MoERouterConfig,
    MoERouterGatingFunction,
    MoERouterType,
)

__all__ = [
    "MoEBase",
    "DroplessMoE",
    "MoEConfig",
    "MoEType",
    "MoEMLP",
    "DroplessMoEMLP",
    "MoERouter",
    "MoELinearRouter",
    "MoERouterConfig",
    "MoERouterType",
    "MoERouterGatingFunction",
    "MoELoadBalancingLossGranularity",
]
