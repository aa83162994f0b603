from .trainer import train, GenericScorer, TrainingData
from .optimizer import ScheduledOptimizer, LinearSchedule
