from .core import ImageReader, TensorReader, UniversalReader

__all__ = ["ImageReader", "TensorReader", "UniversalReader"]
