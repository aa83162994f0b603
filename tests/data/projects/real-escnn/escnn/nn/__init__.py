
from .field_type import FieldType
from .geometric_tensor import GeometricTensor, tensor_directsum

from .modules import *
from .modules import __all__ as modules_list

__all__ = [
    "FieldType",
    "GeometricTensor",
    "tensor_directsum",
    # Modules
] + modules_list + [
    # init
    "init",
]
