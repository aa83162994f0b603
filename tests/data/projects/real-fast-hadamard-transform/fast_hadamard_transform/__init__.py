__version__ = "1.1.0"

from fast_hadamard_transform.fast_hadamard_transform_interface import hadamard_transform
