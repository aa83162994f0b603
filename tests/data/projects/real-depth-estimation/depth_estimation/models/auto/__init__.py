"""
Auto classes for automatic model and processor resolution.
"""

from .modeling_auto import AutoDepthModel
from .processing_auto import AutoProcessor

__all__ = ["AutoDepthModel", "AutoProcessor"]
