"""Root package for the OlmoEarth Pretrain Minimal library."""

from olmoearth_pretrain_minimal.model_loader import (
    ModelID,
    load_model_from_id,
    load_model_from_path,
)
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1 import OlmoEarthPretrain_v1
from olmoearth_pretrain_minimal.olmoearth_pretrain_v1.data.normalize import (
    Normalizer,
    NormalizerV1,
    NormalizerV1_1,
    NormalizerV1_2,
    NormalizerV1_3,
)
from olmoearth_pretrain_minimal.unet_head import UNetDecoder

__all__ = [
    "OlmoEarthPretrain_v1",
    "ModelID",
    "load_model_from_id",
    "load_model_from_path",
    "Normalizer",
    "NormalizerV1",
    "NormalizerV1_1",
    "NormalizerV1_2",
    "NormalizerV1_3",
    "UNetDecoder",
]
