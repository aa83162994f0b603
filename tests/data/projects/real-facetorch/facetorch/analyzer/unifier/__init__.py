from .core import FaceUnifier


__all__ = ["FaceUnifier"]
