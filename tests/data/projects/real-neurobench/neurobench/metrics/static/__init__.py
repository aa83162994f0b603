from .parameter_count import ParameterCount
from .footprint import Footprint
from .connection_sparsity import ConnectionSparsity

__all__ = ["ParameterCount", "Footprint", "ConnectionSparsity"]
