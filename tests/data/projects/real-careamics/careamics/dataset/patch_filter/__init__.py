"""Patch filtering strategies."""

__all__ = [
    "MaskPatchFilter",
    "MaxPatchFilter",
    "MeanStdPatchFilter",
    "PatchFilter",
    "ShannonPatchFilter",
    "create_patch_filter",
]

from .mask_patch_filter import MaskPatchFilter
from .max_patch_filter import MaxPatchFilter
from .mean_std_patch_filter import MeanStdPatchFilter
from .patch_filter import PatchFilter
from .patch_filter_factory import create_patch_filter
from .shannon_patch_filter import ShannonPatchFilter
