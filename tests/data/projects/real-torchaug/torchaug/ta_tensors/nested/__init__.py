# ==================================
# Copyright: CEA-LIST/DIASI/SIALV/
# Author : Torchaug Developers
# License: CECILL-C
# ==================================

# ruff: noqa: F401
# ruff: noqa: D104

from ._bounding_boxes import BoundingBoxesNestedTensors
from ._image import ImageNestedTensors
from ._labels import LabelsNestedTensors
from ._mask import MaskNestedTensors
from ._ta_nested_tensors import TANestedTensors
from ._tensor import NestedTensors
from ._video import VideoNestedTensors
