"""Neural networks implemented as pytorch lightning modules."""

__all__ = ["SemanticSegmentationUnet"]
from membrain_seg.segmentation.networks.unet import SemanticSegmentationUnet
