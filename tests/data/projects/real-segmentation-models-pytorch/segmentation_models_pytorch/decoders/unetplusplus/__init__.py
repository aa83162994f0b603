from .model import UnetPlusPlus

__all__ = ["UnetPlusPlus"]
