"""Auto classes for automatic model and processor resolution."""

from .modeling_auto import AutoStereoModel
from .processing_auto import AutoProcessor

__all__ = ["AutoStereoModel", "AutoProcessor"]
