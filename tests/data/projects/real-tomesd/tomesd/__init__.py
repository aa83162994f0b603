from . import merge, patch
from .patch import apply_patch, remove_patch

__all__ = ["merge", "patch", "apply_patch", "remove_patch"]