"""The module provide classes and functions for model validation."""

__all__ = ["base", "np_iterators", "utils"]
