from .modeling import FCoref, LingMessCoref, CorefResult
from .trainer import TrainingArgs, CorefTrainer