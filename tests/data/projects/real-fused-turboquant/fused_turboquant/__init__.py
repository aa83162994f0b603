"""Fused TurboQuant: KV cache compression with fused Triton kernels powered by RHT."""

__version__ = "0.1.0"

from fused_turboquant.core.hadamard import (
    fwht,
    inverse_fwht,
    inverse_randomized_hadamard,
    randomized_hadamard,
)
from fused_turboquant.core.lloyd_max import LloydMaxQuantizer
from fused_turboquant.core.quantizer import TurboQuantMSE

__all__ = [
    "fwht",
    "inverse_fwht",
    "randomized_hadamard",
    "inverse_randomized_hadamard",
    "LloydMaxQuantizer",
    "TurboQuantMSE",
]
