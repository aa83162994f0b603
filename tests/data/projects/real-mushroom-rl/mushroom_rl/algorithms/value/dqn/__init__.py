from .abstract_dqn import AbstractDQN
from .dqn import DQN
from .double_dqn import DoubleDQN
from .averaged_dqn import AveragedDQN
from .maxmin_dqn import MaxminDQN
from .dueling_dqn import DuelingDQN
from .categorical_dqn import CategoricalDQN
from .noisy_dqn import NoisyDQN
from .quantile_dqn import QuantileDQN
from .rainbow import Rainbow


__all__ = ['AbstractDQN', 'DQN', 'DoubleDQN', 'AveragedDQN', 'MaxminDQN',
           'DuelingDQN', 'CategoricalDQN', 'NoisyDQN', 'QuantileDQN', 'Rainbow']
