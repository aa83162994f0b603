from .utils import resize_image
from .wholebody import Wholebody

__all__ = ["Wholebody", "resize_image"]
