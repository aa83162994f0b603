from .core import FaceDetector


__all__ = ["FaceDetector"]
