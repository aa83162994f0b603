from .dispatch import parallelize_transformer

__all__ = [
  "parallelize_transformer",
]
