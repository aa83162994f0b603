from recbole.trainer.hyper_tuning import HyperTuning
from recbole.trainer.trainer import *

__all__ = ["Trainer", "KGTrainer", "KGATTrainer", "S3RecTrainer"]
