from .base import Container
from .replay_buffer import (
    NormBasedDiversePrioritizedReplayBuffer,
    ReplayBuffer,
    TerminatingStateBuffer,
)
from .states_container import StatesContainer
from .trajectories import Trajectories
from .transitions import Transitions

__all__ = [
    "NormBasedDiversePrioritizedReplayBuffer",
    "ReplayBuffer",
    "StatesContainer",
    "TerminatingStateBuffer",
    "Trajectories",
    "Transitions",
    "Container",
]
