from .model import SegmentationModel

from .modules import Conv2dReLU, Attention

from .heads import SegmentationHead, ClassificationHead

__all__ = [
    "SegmentationModel",
    "Conv2dReLU",
    "Attention",
    "SegmentationHead",
    "ClassificationHead",
]
