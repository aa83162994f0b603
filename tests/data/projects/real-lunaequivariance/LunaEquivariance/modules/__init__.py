"""PyTorch modules built on the functional CUDA interfaces."""

from .tensorproduct import TensorProduct, TensorProductConv

__all__ = ["TensorProduct", "TensorProductConv"]
