from muvi.core.callbacks import CheckpointCallback
from muvi.core.callbacks import LogCallback
from muvi.core.early_stopping import EarlyStoppingCallback
from muvi.core.gpu import get_free_gpu_idx
from muvi.core.models import MuVI
from muvi.core.synthetic import DataGenerator

__all__ = [
    "CheckpointCallback",
    "LogCallback",
    "EarlyStoppingCallback",
    "get_free_gpu_idx",
    "MuVI",
    "DataGenerator",
]
