from .dispatch import parallelize_controlnet

__all__ = ["parallelize_controlnet"]
