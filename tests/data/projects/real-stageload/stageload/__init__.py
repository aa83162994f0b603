"""Load a multi-stage PyTorch pipeline one stage at a time."""

from .events import Event, EventSink, ListSink
from .hooks import on_call
from .meter import MemoryMeter
from .registry import StagedModels
from .release import ReleasedModuleError, ReleaseStats, release
from .share import share

__version__ = "0.1.1"

__all__ = [
    "Event",
    "EventSink",
    "ListSink",
    "MemoryMeter",
    "ReleaseStats",
    "ReleasedModuleError",
    "StagedModels",
    "on_call",
    "release",
    "share",
]
