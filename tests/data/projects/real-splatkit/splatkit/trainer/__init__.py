from .trainer import SplatTrainerConfig, SplatTrainer
from .distributed import SplatDistributedTrainer

__all__ = ['SplatTrainerConfig', 'SplatTrainer', 'SplatDistributedTrainer']