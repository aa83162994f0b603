from .register import xFuserLayerWrappersRegister
from .base_layer import xFuserLayerBaseWrapper
from .attention_processor import xFuserAttentionWrapper
from .attention_processor import xFuserAttentionBaseWrapper
from .conv import xFuserConv2dWrapper
from .embeddings import xFuserPatchEmbedWrapper
from .feedforward import xFuserFeedForwardWrapper
from .mxfp4_linear import xFuserMXFP4Linear
from .mxfp6_linear import xFuserMXFP6Linear
from .fp8_linear import xFuserFP8BlockScaleLinear

__all__ = [
    "xFuserLayerWrappersRegister",
    "xFuserLayerBaseWrapper",
    "xFuserAttentionBaseWrapper",
    "xFuserAttentionWrapper",
    "xFuserConv2dWrapper",
    "xFuserPatchEmbedWrapper",
    "xFuserFeedForwardWrapper",
    "xFuserMXFP4Linear",
    "xFuserMXFP6Linear",
    "xFuserFP8BlockScaleLinear",
]
