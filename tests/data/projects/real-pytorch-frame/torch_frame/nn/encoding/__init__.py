r"""Encoding package."""
from .cyclic_encoding import CyclicEncoding
from .positional_encoding import PositionalEncoding

__all__ = classes = [
    'CyclicEncoding',
    'PositionalEncoding',
]
