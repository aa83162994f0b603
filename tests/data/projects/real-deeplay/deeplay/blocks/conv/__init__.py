__all__ = ["Conv2dBlock"]

from .conv2d import Conv2dBlock
