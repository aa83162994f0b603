"""Training engine: trainer, callbacks, logger."""

from fujicv.engine.base_logger import BaseLogger
from fujicv.engine.callbacks import CheckpointCallback, EarlyStopping, LRSchedulerCallback
from fujicv.engine.logger import WandbLogger
from fujicv.engine.mlflow_logger import MLflowLogger
from fujicv.engine.tensorboard_logger import TensorBoardLogger
from fujicv.engine.trainer import History, Trainer

__all__ = [
    "Trainer",
    "History",
    "BaseLogger",
    "WandbLogger",
    "TensorBoardLogger",
    "MLflowLogger",
    "EarlyStopping",
    "CheckpointCallback",
    "LRSchedulerCallback",
]
