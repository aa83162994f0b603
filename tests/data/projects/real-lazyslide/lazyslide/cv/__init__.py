from .mask import (
    BinaryMask,
    InstanceMap,
    Mask,
    MulticlassMask,
    MultilabelMask,
    ProbabilityMap,
)
from .tiles_merger import merge_connected_polygons, nms

__all__ = [
    "BinaryMask",
    "InstanceMap",
    "Mask",
    "MulticlassMask",
    "MultilabelMask",
    "ProbabilityMap",
    "merge_connected_polygons",
    "nms",
]
