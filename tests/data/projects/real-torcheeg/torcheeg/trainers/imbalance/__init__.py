from .la import LALossTrainer
from .ldam import LDAMLossTrainer
from .eq import EQLossTrainer
from .focal import FocalLossTrainer
from .wce import WCELossTrainer