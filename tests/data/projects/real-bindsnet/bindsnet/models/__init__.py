from bindsnet.models.models import (
    DiehlAndCook2015,
    DiehlAndCook2015v2,
    IncreasingInhibitionNetwork,
    LocallyConnectedNetwork,
    TwoLayerNetwork,
)

__all__ = [
    "TwoLayerNetwork",
    "DiehlAndCook2015v2",
    "DiehlAndCook2015",
    "IncreasingInhibitionNetwork",
    "LocallyConnectedNetwork",
]
