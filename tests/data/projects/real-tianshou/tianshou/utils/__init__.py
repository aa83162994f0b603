"""Utils package."""

from tianshou.utils.logger.logger_base import BaseLogger, LazyLogger
from tianshou.utils.logger.tensorboard import TensorboardLogger
from tianshou.utils.logger.wandb import WandbLogger
from tianshou.utils.progress_bar import DummyTqdm, tqdm_config
from tianshou.utils.statistics import MovAvg, RunningMeanStd
from tianshou.utils.warning import deprecation

__all__ = [
    "BaseLogger",
    "DummyTqdm",
    "LazyLogger",
    "MovAvg",
    "RunningMeanStd",
    "TensorboardLogger",
    "WandbLogger",
    "deprecation",
    "tqdm_config",
]
