from .base import HardNegativeMiner
from .simpleminer import SimpleMiner

__all__ = ["HardNegativeMiner", "SimpleMiner"]
