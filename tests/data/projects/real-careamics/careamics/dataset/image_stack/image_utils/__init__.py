"""Image stack utility functions."""

__all__ = ["pad_patch"]


from .image_stack_utils import pad_patch
