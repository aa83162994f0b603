from reflectorch.models.encoders.conv_encoder import (
    ConvEncoder,
    ConvDecoder,
    ConvAutoencoder,
)
from reflectorch.models.encoders.fno import FnoEncoder, SpectralConv1d
from reflectorch.models.encoders.integral_kernel_embedding import IntegralConvEmbedding
from reflectorch.models.encoders.conv_res_net import ConvResidualNet1D


__all__ = [
    "ConvEncoder",
    "ConvDecoder",
    "ConvAutoencoder",
    "ConvResidualNet1D",
    "FnoEncoder",
    "SpectralConv1d",
    "IntegralConvEmbedding",
]
