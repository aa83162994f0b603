from reflectorch.models.encoders import *
from reflectorch.models.networks import *

__all__ = [
    "ConvEncoder",
    "ConvDecoder",
    "ConvAutoencoder",
    "FnoEncoder",
    "IntegralConvEmbedding",
    "SpectralConv1d",
    "ConvResidualNet1D",
    "ResidualMLP",
    "NetworkWithPriors",
    "NetworkWithPriorsConvEmb",
    "NetworkWithPriorsFnoEmb",
]