from .training_engine import TrainingEngine
from .trainer_config import TrainerConfig