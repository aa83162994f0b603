"""Training utilities."""

from quanda.utils.training.base_pl_module import BasicLightningModule
from quanda.utils.training.trainer import BaseTrainer, Trainer

__all__ = ["BasicLightningModule", "BaseTrainer", "Trainer"]
