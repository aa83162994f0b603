from .augmentations import letterbox
from .downloads import attempt_download
from .general import non_max_suppression, intersect_dicts, scale_coords, set_logging
from .torch_utils import select_device

__all__ = [
    "letterbox",
    "non_max_suppression",
    "intersect_dicts",
    "scale_coords",
    "set_logging",
    "attempt_download",
    "select_device",
]
