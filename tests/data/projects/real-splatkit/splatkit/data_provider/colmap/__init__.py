from .provider import SplatColmapDataProvider
from .config import SplatColmapDataProviderConfig
from .item import ColmapDataItem

__all__ = [
    "SplatColmapDataProvider",
    "SplatColmapDataProviderConfig",
    "ColmapDataItem",
]