from .blending import PatchBlender

__all__ = [
    "PatchBlender",
]
