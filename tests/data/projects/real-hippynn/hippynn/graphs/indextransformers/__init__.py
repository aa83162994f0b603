"""
Nodes that transform the index state of data.
"""
from . import atoms
from . import pairs
from . import tensors
