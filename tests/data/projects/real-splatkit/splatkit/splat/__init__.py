from .model import SplatModel
from .training_state import SplatTrainingState

__all__ = ['SplatModel', 'SplatTrainingState']