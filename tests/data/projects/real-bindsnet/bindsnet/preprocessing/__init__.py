from .preprocessing import AbstractPreprocessor

__all__ = ["AbstractPreprocessor"]
