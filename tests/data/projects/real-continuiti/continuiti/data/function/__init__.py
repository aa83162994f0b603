"""
`continuiti.data.function`

Function data set implementations.
"""
from .function import Function
from .function_set import FunctionSet
from .function_dataset import FunctionOperatorDataset

__all__ = ["Function", "FunctionSet", "FunctionOperatorDataset"]
