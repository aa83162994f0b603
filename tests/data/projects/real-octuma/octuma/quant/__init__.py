from .core import (
    QuantizedTensor,
    dequantize_groupwise,
    pack_bits,
    quantization_error,
    quantize_groupwise,
    quantize_tensor,
    unpack_bits,
)
from .gptq import GPTQConfig, LayerStats, gptq_quantize
from .qlinear import QuantLinear

__all__ = [
    "GPTQConfig",
    "LayerStats",
    "QuantLinear",
    "QuantizedTensor",
    "dequantize_groupwise",
    "gptq_quantize",
    "pack_bits",
    "quantization_error",
    "quantize_groupwise",
    "quantize_tensor",
    "unpack_bits",
]
