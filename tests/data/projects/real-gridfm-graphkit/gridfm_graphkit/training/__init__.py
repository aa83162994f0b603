from gridfm_graphkit.training.loss import (
    MSELoss,
    MaskedMSELoss,
    LayeredWeightedPhysicsLoss,
    MaskedBusMSE,
    MaskedGenMSE,
)

__all__ = [
    "MSELoss",
    "MaskedMSELoss",
    "LayeredWeightedPhysicsLoss",
    "MaskedBusMSE",
    "MaskedGenMSE",
    "LossPerDim",
]
