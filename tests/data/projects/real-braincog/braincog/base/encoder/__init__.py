from .encoder import Encoder
from .population_coding import PEncoder
from.qs_coding import QSEncoder


__all__ = [
    'Encoder',
    'PEncoder',
    'QSEncoder'
]