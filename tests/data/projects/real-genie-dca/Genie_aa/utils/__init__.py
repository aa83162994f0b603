# Utility functions

from .parser import parse_arguments

__all__ = [
    'parse_arguments'
]
