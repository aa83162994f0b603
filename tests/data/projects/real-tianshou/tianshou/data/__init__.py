"""Data package."""
# isort:skip_file

from tianshou.data.batch import Batch
from tianshou.data.utils.converter import to_numpy, to_torch, to_torch_as
from tianshou.data.utils.segtree import SegmentTree
from tianshou.data.buffer.buffer_base import ReplayBuffer
from tianshou.data.buffer.prio import PrioritizedReplayBuffer
from tianshou.data.buffer.her import HERReplayBuffer
from tianshou.data.buffer.manager import (
    ReplayBufferManager,
    PrioritizedReplayBufferManager,
    HERReplayBufferManager,
)
from tianshou.data.buffer.vecbuf import (
    HERVectorReplayBuffer,
    PrioritizedVectorReplayBuffer,
    VectorReplayBuffer,
)
from tianshou.data.buffer.cached import CachedReplayBuffer
from tianshou.data.stats import (
    EpochStats,
    InfoStats,
    SequenceSummaryStats,
    TimingStats,
)
from tianshou.data.collector import (
    Collector,
    AsyncCollector,
    CollectStats,
    CollectStatsBase,
    BaseCollector,
)

__all__ = [
    "AsyncCollector",
    "BaseCollector",
    "Batch",
    "CachedReplayBuffer",
    "CollectStats",
    "CollectStatsBase",
    "Collector",
    "EpochStats",
    "HERReplayBuffer",
    "HERReplayBufferManager",
    "HERVectorReplayBuffer",
    "InfoStats",
    "PrioritizedReplayBuffer",
    "PrioritizedReplayBufferManager",
    "PrioritizedVectorReplayBuffer",
    "ReplayBuffer",
    "ReplayBufferManager",
    "SegmentTree",
    "SequenceSummaryStats",
    "TimingStats",
    "VectorReplayBuffer",
    "to_numpy",
    "to_torch",
    "to_torch_as",
]
