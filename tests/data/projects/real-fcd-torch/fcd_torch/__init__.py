from .fcd import FCD
from .fcd import calculate_frechet_distance

__all__ = ['FCD', 'calculate_frechet_distance']
