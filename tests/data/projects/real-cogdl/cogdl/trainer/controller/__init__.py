from .data_controller import DataController
from .training_controller import TrainingController
