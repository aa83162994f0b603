"""Next-generation dataset components."""

from .image_region_data import ImageRegionData

__all__ = ["ImageRegionData"]
