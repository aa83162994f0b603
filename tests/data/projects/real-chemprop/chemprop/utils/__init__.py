from .registry import ClassRegistry, Factory
from .utils import EnumMapping, create_and_call_object, make_mol, parallel_execute, pretty_shape

__all__ = [
    "ClassRegistry",
    "Factory",
    "EnumMapping",
    "make_mol",
    "pretty_shape",
    "create_and_call_object",
    "parallel_execute",
]
