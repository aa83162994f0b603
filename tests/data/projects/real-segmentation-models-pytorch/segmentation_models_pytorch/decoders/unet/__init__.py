from .model import Unet

__all__ = ["Unet"]
