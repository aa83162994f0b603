from .optimizer import EROptimizer
from .trainer import train_network

__version__ = "0.1.0"

__all__ = ["EROptimizer", "train_network"]