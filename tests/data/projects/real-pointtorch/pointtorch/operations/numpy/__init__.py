"""
Point cloud processing operations for the use with `numpy arrays
<https://numpy.org/doc/stable/reference/generated/numpy.array.html>`_.
"""

from ._fit_oriented_bounding_box import *
from ._make_labels_consecutive import *
from ._non_max_suppression import *
from ._resolve_instance_overlaps import *
from ._voxel_downsampling import *

__all__ = [name for name in globals().keys() if not name.startswith("_")]
