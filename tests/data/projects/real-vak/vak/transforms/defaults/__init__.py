from . import frame_classification

__all__ = ["frame_classification"]
