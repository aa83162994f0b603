from .distiller import Distiller
from .trainer import Trainer
from .state import TrainingState, StepOutput

__all__ = ["Distiller", "Trainer", "TrainingState", "StepOutput"]

