from .core import FaceAnalyzer

__all__ = ["FaceAnalyzer"]
