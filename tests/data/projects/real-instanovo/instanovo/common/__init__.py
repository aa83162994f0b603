from instanovo.common.dataset import DataProcessor
from instanovo.common.predictor import AccelerateDeNovoPredictor
from instanovo.common.scheduler import CosineWarmupScheduler, FinetuneScheduler, WarmupScheduler
from instanovo.common.trainer import AccelerateDeNovoTrainer
from instanovo.common.utils import NeptuneSummaryWriter, Timer, TrainingState

__all__ = [
    "DataProcessor",
    "AccelerateDeNovoTrainer",
    "AccelerateDeNovoPredictor",
    "FinetuneScheduler",
    "WarmupScheduler",
    "CosineWarmupScheduler",
    "NeptuneSummaryWriter",
    "TrainingState",
    "Timer",
]
