"""Shared training infrastructure (EMA, schedulers, augmentation, config)."""

from .artifacts import TrainingArtifactsCallback as TrainingArtifactsCallback
from .callbacks import (
    TrainCallback as TrainCallback,
    TrainCallbackList as TrainCallbackList,
    TrainCallbacks as TrainCallbacks,
    TrainEndEvent as TrainEndEvent,
    TrainEpochEvent as TrainEpochEvent,
    TrainExceptionEvent as TrainExceptionEvent,
    TrainStartEvent as TrainStartEvent,
)
from .config import (
    TrainConfig as TrainConfig,
    FOMOConfig as FOMOConfig,
)
