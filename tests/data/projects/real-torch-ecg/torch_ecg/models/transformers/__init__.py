""" """

from .transformer import Transformer

__all__ = [
    "Transformer",
]
