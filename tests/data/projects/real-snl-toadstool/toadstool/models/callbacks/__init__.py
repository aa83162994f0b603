from toadstool.models.callbacks.CudaCallback import CudaCallback, DeepSpeedCallback
from toadstool.models.callbacks.Debug import DebugCallback
from toadstool.models.callbacks.EarlyStopping import CheckpointCallback, EarlyStopping
from toadstool.models.callbacks.Evaluation import (
    AccuracyScorerCallback,
    BatchAccumulator,
    BinaryScore,
    MetricScoreCallback,
)
from toadstool.models.callbacks.LearningRate import GradClipCallback, LRFinderCallback, LRSchedulerCallback
from toadstool.models.callbacks.Monitor import MonitorCallback, SimpleMonitorCallback
from toadstool.models.callbacks.Torch import SamplerCallback

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
]
