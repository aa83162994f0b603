from .unet import UNet

__version__ = "0.1.3"

__all__ = ["UNet"]
