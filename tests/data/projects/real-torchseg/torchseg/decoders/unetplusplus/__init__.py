from .model import UnetPlusPlus  # noqa: F401
