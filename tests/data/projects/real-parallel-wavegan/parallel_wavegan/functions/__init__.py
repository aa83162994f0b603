from .vector_quantizer import vector_quantize  # NOQA
from .vector_quantizer import vector_quantize_straight_through  # NOQA
