from .system import System
from .optimizers import make_optimizer

__all__ = ["System", "make_optimizer"]
