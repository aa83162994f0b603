"""Tensor products and graph convolutions in UUU, UVU and UVW modes."""

from ..modules.tensorproduct import TensorProduct, TensorProductConv
from .interface import tensor_product, tensor_product_conv, prepare_tensor_product
from ..o3.irreps import Irrep, Irreps
from .utils.layout import TensorProductConfig
from .graph import LunaTPGraph, make_graph

__all__ = ["tensor_product", "tensor_product_conv", "prepare_tensor_product", "TensorProduct", "TensorProductConv", "Irrep", "Irreps", "TensorProductConfig",
           "LunaTPGraph", "make_graph"]
