from .heads import ClassificationHead, SegmentationHead
from .model import SegmentationModel
from .modules import Attention, Conv2dReLU

__all__ = (
    "Attention",
    "ClassificationHead",
    "Conv2dReLU",
    "SegmentationHead",
    "SegmentationModel",
)
