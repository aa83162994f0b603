from .model import Unet  # noqa: F401
