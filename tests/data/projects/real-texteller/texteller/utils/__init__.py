from .device import get_device, cuda_available, mps_available, str2device
from .image import readimgs, transform
from .latex import change_all, remove_style, add_newlines
from .path import mkdir, resolve_path
from .misc import lines_dedent
from .bbox import mask_img, bbox_merge, split_conflict, slice_from_image, draw_bboxes

__all__ = [
    "get_device",
    "cuda_available",
    "mps_available",
    "str2device",
    "readimgs",
    "transform",
    "change_all",
    "remove_style",
    "add_newlines",
    "mkdir",
    "resolve_path",
    "lines_dedent",
    "mask_img",
    "bbox_merge",
    "split_conflict",
    "slice_from_image",
    "draw_bboxes",
]
