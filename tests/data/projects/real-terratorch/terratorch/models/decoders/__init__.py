# Copyright contributors to the Terratorch project

from terratorch.models.decoders.aspp_head import ASPPRegressionHead, ASPPSegmentationHead
from terratorch.models.decoders.fcn_decoder import FCNDecoder
from terratorch.models.decoders.identity_decoder import IdentityDecoder
from terratorch.models.decoders.linear_decoder import LinearDecoder
from terratorch.models.decoders.mlp_decoder import MLPDecoder
from terratorch.models.decoders.sklearn_decoder import SklearnDecoder
from terratorch.models.decoders.satmae_head import SatMAEHead, SatMAEHeadViT
from terratorch.models.decoders.unet_decoder import UNetDecoder
from terratorch.models.decoders.upernet_decoder import UperNetDecoder

__all__ = [
    "ASPPRegressionHead",
    "ASPPSegmentationHead",
    "FCNDecoder",
    "IdentityDecoder",
    "LinearDecoder",
    "MLPDecoder",
    "SMPDecoderWrapper",
    "SatMAEHead",
    "SatMAEHeadViT",
    "UNetDecoder",
    "UperNetDecoder",
    "SklearnDecoder",
]
