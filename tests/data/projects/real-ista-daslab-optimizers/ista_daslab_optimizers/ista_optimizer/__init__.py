from .ista_optimizer import ISTAOptimizer

__all__ = [
    'ISTAOptimizer'
]
