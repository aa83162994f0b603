
from .rd_convolution import _RdConv

from .r2convolution import R2Conv
from .r3convolution import R3Conv

from .r3_ico_convolution import R3IcoConv
from .r3_ico_transposed_convolution import R3IcoConvTransposed

from .r2_transposed_convolution import R2ConvTransposed
from .r3_transposed_convolution import R3ConvTransposed

__all__ = [
    "R3Conv",
    "R2Conv",
    "R2ConvTransposed",
    "R3ConvTransposed",
    "R3IcoConv",
    "R3IcoConvTransposed",
]

