from ._artifact import artifact
from ._cell import cell_types, cells
from ._seg_runner import (
    CellSegmentationRunner,
    SemanticSegmentationRunner,
    semantic,
)
from ._tissue import tissue
from ._zero_shot import zero_shot

__all__ = [
    "CellSegmentationRunner",
    "SemanticSegmentationRunner",
    "artifact",
    "cell_types",
    "cells",
    "semantic",
    "tissue",
    "zero_shot",
]
