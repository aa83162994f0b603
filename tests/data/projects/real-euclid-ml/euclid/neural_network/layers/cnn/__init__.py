"""Convolutional and spatial layers."""

from .conv2d import Conv2D
from .flatten import Flatten
from .maxpool2d import MaxPool2D
from .reshape import Reshape
from .upsampler import Upsample2D
from .convtranspose2d import Conv2DTranspose
__all__ = ["Conv2D", "Flatten", "MaxPool2D", "Reshape", "Upsample2D", "Conv2DTranspose"]
