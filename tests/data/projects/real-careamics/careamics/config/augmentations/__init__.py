"""CAREamics transformation Pydantic models."""

__all__ = [
    "SPATIAL_TRANSFORMS_UNION",
    "N2VManipulateConfig",
    "XYFlipConfig",
    "XYRandomRotate90Config",
]


from .transform_unions import (
    SPATIAL_TRANSFORMS_UNION,
)
from .xy_flip_config import XYFlipConfig
from .xy_random_rotate90_config import XYRandomRotate90Config
