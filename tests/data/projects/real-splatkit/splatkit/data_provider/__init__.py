from .base import SplatDataProvider, SplatDataItem, SplatDataItemT
from .colmap import SplatColmapDataProvider, SplatColmapDataProviderConfig, ColmapDataItem

__all__ = [
    "SplatDataProvider",
    "SplatDataItem",
    "SplatDataItemT",

    "SplatColmapDataProvider",
    "SplatColmapDataProviderConfig",
    "ColmapDataItem",
]