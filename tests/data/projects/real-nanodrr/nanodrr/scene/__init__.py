from .scene import visualize_scene

__all__ = ["visualize_scene"]
