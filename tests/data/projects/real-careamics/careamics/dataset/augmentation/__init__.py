"""Transforms that are used to augment the data."""

__all__ = [
    "Transform",
    "XYFlip",
    "XYRandomRotate90",
]

from .transform import Transform
from .xy_flip import XYFlip
from .xy_random_rotate90 import XYRandomRotate90
