# ruff: noqa: F401
from .deeplab import deep_lab_v3_resnet
from .segformer import seg_former
from .unet import (
    batched_small_unet,
    batched_unet,
    masked_small_unet,
    masked_unet,
    mimo_small_unet,
    mimo_unet,
    packed_small_unet,
    packed_unet,
    small_unet,
    unet,
)
