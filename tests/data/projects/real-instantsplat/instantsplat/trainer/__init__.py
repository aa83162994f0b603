from .trainer import Trainer, ScaleRegularizeTrainer
from .trainer import BaseTrainer, BaseScaleRegularizeTrainer
