"""Driver callbacks: `on_step_end(state, out)` plus an `every` cadence the
CallbackRunner schedules."""

from kohakumoss.training.callbacks.evaluate import FixedSigma, SampleGrid, Validation
from kohakumoss.training.callbacks.monitor import (
    InstabilityDump,
    LogMetrics,
    StepLine,
    TextEncodeStats,
    Throughput,
    VaeEncodeStats,
    Vram,
    VramAtStepOne,
)
from kohakumoss.training.callbacks.runner import (
    CallbackRunner,
    SaveCheckpoint,
    TimedCheckpoint,
)

__all__ = [
    "CallbackRunner",
    "FixedSigma",
    "InstabilityDump",
    "LogMetrics",
    "SampleGrid",
    "SaveCheckpoint",
    "StepLine",
    "TextEncodeStats",
    "Throughput",
    "TimedCheckpoint",
    "Validation",
    "VaeEncodeStats",
    "Vram",
    "VramAtStepOne",
]
