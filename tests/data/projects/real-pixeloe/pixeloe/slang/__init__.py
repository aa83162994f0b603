"""Slang (GPU/CPU shader) implementation of the PixelOE pipeline."""

from .pixelize import pixelize
from .runtime import ALL_BACKENDS, Context, CpuContext, create_context, get_context

__all__ = [
    "ALL_BACKENDS",
    "Context",
    "CpuContext",
    "create_context",
    "get_context",
    "pixelize",
]
