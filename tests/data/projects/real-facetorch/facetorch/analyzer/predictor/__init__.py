from .core import FacePredictor

__all__ = ["FacePredictor"]
