from pfrl.replay_buffers.episodic import EpisodicReplayBuffer  # NOQA
from pfrl.replay_buffers.persistent import PersistentEpisodicReplayBuffer  # NOQA
from pfrl.replay_buffers.persistent import PersistentReplayBuffer  # NOQA
from pfrl.replay_buffers.prioritized import PrioritizedReplayBuffer  # NOQA
from pfrl.replay_buffers.prioritized import PriorityWeightError  # NOQA
from pfrl.replay_buffers.prioritized_episodic import (  # NOQA
    PrioritizedEpisodicReplayBuffer,
)
from pfrl.replay_buffers.replay_buffer import ReplayBuffer  # NOQA
