from .base import SplatDensification
from .default import SplatDefaultDensification

__all__ = [
    "SplatDensification",
    "SplatDefaultDensification",
]