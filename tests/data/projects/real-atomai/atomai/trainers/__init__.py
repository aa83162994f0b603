from .trainer import SegTrainer, ImSpecTrainer, RegTrainer, clsTrainer, BaseTrainer
from .etrainer import BaseEnsembleTrainer, EnsembleTrainer
from .vitrainer import viBaseTrainer
from .gptrainer import dklGPTrainer, GPTrainer

__all__ = ["SegTrainer", "ImSpecTrainer", "BaseTrainer", "BaseEnsembleTrainer",
           "EnsembleTrainer", "viBaseTrainer", "dklGPTrainer", "RegTrainer", "clsTrainer",
           "GPTrainer"]
