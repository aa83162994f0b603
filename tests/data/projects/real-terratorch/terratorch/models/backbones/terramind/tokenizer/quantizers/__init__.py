from .quantize_finite_scalar import FiniteScalarQuantizer
from .quantize_lucid import VectorQuantize as VectorQuantizerLucid
from .quantize_memcodes import Memcodes
