from .quant_function import *
from .quant_module import *

__all__ = [
    "fixed_point_quantize",
    "block_quantize",
    "float_quantize",
    "quantizer",
    "Quantizer",
]
