"""Main functionality of toadstool is the trainer and callbacks for creating a model, allow top-level import."""

from toadstool.models.callbacks import (
    AccuracyScorerCallback,
    BatchAccumulator,
    BinaryScore,
    CheckpointCallback,
    CudaCallback,
    DebugCallback,
    DeepSpeedCallback,
    EarlyStopping,
    GradClipCallback,
    LRFinderCallback,
    LRSchedulerCallback,
    MetricScoreCallback,
    MonitorCallback,
    SamplerCallback,
    SimpleMonitorCallback,
)
from toadstool.models.dl_utils import Trainer

__all__ = [
    'AccuracyScorerCallback',
    'BatchAccumulator',
    'BinaryScore',
    'CheckpointCallback',
    'CudaCallback',
    'DebugCallback',
    'DeepSpeedCallback',
    'EarlyStopping',
    'GradClipCallback',
    'LRFinderCallback',
    'LRSchedulerCallback',
    'MetricScoreCallback',
    'MonitorCallback',
    'SamplerCallback',
    'SimpleMonitorCallback',
    'Trainer',
]
