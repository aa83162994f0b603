from .convolution import convolve, tucker_conv
from .linear import factorized_linear