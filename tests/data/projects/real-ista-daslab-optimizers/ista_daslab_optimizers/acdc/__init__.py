from .acdc import ACDC

__all__ = [
    'ACDC'
]
