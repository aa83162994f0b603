from .energy import Efficiency, Energy, EnergyTracker
from .latency import (
    Latency,
    LatencySessionTracker,
    LatencyTracker,
    PerStepLatencySessionTrackerPipelineCallback,
    PerTokenLatencySessionTrackerLogitsProcessor,
    StepLatencyTrackerTrainerCallback,
    Throughput,
)
from .memory import Memory, MemoryTracker

__all__ = [
    "Efficiency",
    "Energy",
    "EnergyTracker",
    "Latency",
    "LatencySessionTracker",
    "LatencyTracker",
    "PerStepLatencySessionTrackerPipelineCallback",
    "PerTokenLatencySessionTrackerLogitsProcessor",
    "StepLatencyTrackerTrainerCallback",
    "Throughput",
    "Memory",
    "MemoryTracker",
]
