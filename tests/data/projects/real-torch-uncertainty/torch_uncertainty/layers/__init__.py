# ruff: noqa: F401
from .batch_ensemble import BatchConv1d, BatchConv2d, BatchConvTranspose2d, BatchLinear
from .bayesian import BayesConv1d, BayesConv2d, BayesConv3d, BayesLinear
from .channel_layer_norm import ChannelLayerNorm
from .distributions import (
    CauchyConvNd,
    CauchyLinear,
    LaplaceConvNd,
    LaplaceLinear,
    NormalConvNd,
    NormalInverseGammaConvNd,
    NormalInverseGammaLinear,
    NormalLinear,
    StudentTConvNd,
    StudentTLinear,
)
from .filter_response_norm import FilterResponseNorm1d, FilterResponseNorm2d, FilterResponseNorm3d
from .masksembles import MaskedConv2d, MaskedConvTranspose2d, MaskedLinear
from .modules import Identity
from .packed import (
    PackedConv1d,
    PackedConv2d,
    PackedConv3d,
    PackedConvTranspose2d,
    PackedLayerNorm,
    PackedLinear,
    PackedMultiheadAttention,
    PackedTransformerDecoderLayer,
    PackedTransformerEncoderLayer,
)
