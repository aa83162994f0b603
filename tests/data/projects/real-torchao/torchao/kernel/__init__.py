from torchao.kernel.bsr_triton_ops import bsr_dense_addmm
from torchao.kernel.intmm import int_scaled_matmul, safe_int_mm

__all__ = [
    "bsr_dense_addmm",
    "safe_int_mm",
    "int_scaled_matmul",
]
