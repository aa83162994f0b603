"""Stage B/D — multi scale (pyramid) and tile/slice scheduling.

Two independent scalability knobs: a coarse to fine pyramid for the
search/solve step, and tile/slice rendering for the compositing step on very
large images.
"""

from .image_pyramid import ImagePyramid, gaussian_blur, downsample, upsample
from .scale_scheduler import ScaleScheduler
from .tile_scheduler import TileScheduler, Tile

__all__ = [
    "ImagePyramid", "gaussian_blur", "downsample", "upsample",
    "ScaleScheduler", "TileScheduler", "Tile",
]
