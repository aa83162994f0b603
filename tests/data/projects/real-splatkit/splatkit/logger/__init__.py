from .base import SplatLogger

__all__ = [
    "SplatLogger",
]

