from .analyzer.core import FaceAnalyzer

__all__ = ["FaceAnalyzer"]
