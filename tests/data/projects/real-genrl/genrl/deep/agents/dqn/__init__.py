from genrl.deep.agents.dqn.base import DQN  # noqa
from genrl.deep.agents.dqn.categorical import CategoricalDQN  # noqa
from genrl.deep.agents.dqn.double import DoubleDQN  # noqa
from genrl.deep.agents.dqn.dueling import DuelingDQN  # noqa
from genrl.deep.agents.dqn.noisy import NoisyDQN  # noqa
from genrl.deep.agents.dqn.prioritized import PrioritizedReplayDQN  # noqa
from genrl.deep.agents.dqn.utils import ddqn_q_target  # noqa
