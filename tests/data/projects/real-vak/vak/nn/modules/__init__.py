from .activation import NormReLU
from .conv import Conv2dTF

__all__ = [
    "Conv2dTF",
    "NormReLU",
]
