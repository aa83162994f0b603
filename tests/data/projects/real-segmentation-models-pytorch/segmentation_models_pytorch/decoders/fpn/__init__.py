from .model import FPN

__all__ = ["FPN"]
