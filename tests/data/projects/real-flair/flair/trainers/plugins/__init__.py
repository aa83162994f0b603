from .base import BasePlugin, Pluggable, TrainerPlugin, TrainingInterrupt
from .functional.anneal_on_plateau import AnnealingPlugin
from .functional.checkpoints import CheckpointPlugin
from .functional.deepncm_trainer_plugin import DeepNCMPlugin
from .functional.linear_scheduler import LinearSchedulerPlugin
from .functional.reduce_transformer_vocab import ReduceTransformerVocabPlugin
from .functional.weight_extractor import WeightExtractorPlugin
from .loggers.clearml_logger import ClearmlLoggerPlugin
from .loggers.log_file import LogFilePlugin
from .loggers.loss_file import LossFilePlugin
from .loggers.metric_history import MetricHistoryPlugin
from .loggers.tensorboard import TensorboardLogger
from .metric_records import MetricName, MetricRecord

__all__ = [
    "AnnealingPlugin",
    "CheckpointPlugin",
    "ClearmlLoggerPlugin",
    "DeepNCMPlugin",
    "LinearSchedulerPlugin",
    "WeightExtractorPlugin",
    "LogFilePlugin",
    "LossFilePlugin",
    "MetricHistoryPlugin",
    "TensorboardLogger",
    "BasePlugin",
    "Pluggable",
    "TrainerPlugin",
    "TrainingInterrupt",
    "ReduceTransformerVocabPlugin",
    "MetricName",
    "MetricRecord",
]
