from ._api import annotations, tiles, tissue
from ._wsi_viewer import WSIViewer

__all__ = [
    "WSIViewer",
    "annotations",
    "tiles",
    "tissue",
]
