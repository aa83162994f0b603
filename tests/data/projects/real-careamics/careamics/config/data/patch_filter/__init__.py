"""Pydantic models representing coordinate and patch filters."""

__all__ = [
    "MaskPatchFilterConfig",
    "MaxPatchFilterConfig",
    "MeanStdPatchFilterConfig",
    "PatchFilterConfig",
    "ShannonPatchFilterConfig",
]

from .mask_filter_config import MaskPatchFilterConfig
from .max_filter_config import MaxPatchFilterConfig
from .meanstd_filter_config import MeanStdPatchFilterConfig
from .patch_filter_config import PatchFilterConfig
from .shannon_filter_config import ShannonPatchFilterConfig
