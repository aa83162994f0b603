# Core evolution algorithms
from .evolution import evolve_sequences

__all__ = [
    'evolve_sequences'
]

