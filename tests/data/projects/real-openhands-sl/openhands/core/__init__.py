from .data import DataModule
from .exp_utils import (
    experiment_manager,
    configure_loggers,
    configure_early_stopping,
    configure_checkpointing,
)
from .losses import CrossEntropyLoss, SmoothedCrossEntropyLoss
