from .api import CervicalSeg, SegmentationResult

__all__ = ["CervicalSeg", "SegmentationResult"]
__version__ = "0.2.0"
