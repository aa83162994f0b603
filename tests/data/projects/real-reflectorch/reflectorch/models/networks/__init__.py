from reflectorch.models.networks.mlp_networks import (
    NetworkWithPriors,
    NetworkWithPriorsConvEmb,
    NetworkWithPriorsFnoEmb,
)
from reflectorch.models.networks.residual_net import ResidualMLP


__all__ = [
    "ResidualMLP",
    "NetworkWithPriors",
    "NetworkWithPriorsConvEmb",
    "NetworkWithPriorsFnoEmb",
]
