from ._instruction import Instruction
from ._tensor_product import TensorProduct
from ._sub import ElementwiseTensorProduct, FullTensorProduct, FullyConnectedTensorProduct, TensorSquare

__all__ = [
    "Instruction",
    "TensorProduct",
    "FullyConnectedTensorProduct",
    "ElementwiseTensorProduct",
    "FullTensorProduct",
    "TensorSquare",
]
