from genrl.agents.bandits.contextual.base import DCBAgent  # noqa
from genrl.agents.bandits.contextual.bootstrap_neural import (  # noqa,
    BootstrapNeuralAgent,
)
from genrl.agents.bandits.contextual.common import BayesianNNBanditModel  # noqa
from genrl.agents.bandits.contextual.common import NeuralBanditModel  # noqa
from genrl.agents.bandits.contextual.common import TransitionDB  # noqa
from genrl.agents.bandits.contextual.fixed import FixedAgent  # noqa
from genrl.agents.bandits.contextual.linpos import LinearPosteriorAgent  # noqa
from genrl.agents.bandits.contextual.neural_greedy import NeuralGreedyAgent  # noqa
from genrl.agents.bandits.contextual.neural_linpos import (  # noqa,
    NeuralLinearPosteriorAgent,
)
from genrl.agents.bandits.contextual.neural_noise_sampling import (  # noqa,
    NeuralNoiseSamplingAgent,
)
from genrl.agents.bandits.contextual.variational import VariationalAgent  # noqa
from genrl.agents.bandits.multiarmed.bayesian import BayesianUCBMABAgent  # noqa
from genrl.agents.bandits.multiarmed.bernoulli_mab import BernoulliMAB  # noqa
from genrl.agents.bandits.multiarmed.epsgreedy import EpsGreedyMABAgent  # noqa
from genrl.agents.bandits.multiarmed.gaussian_mab import GaussianMAB  # noqa
from genrl.agents.bandits.multiarmed.gradient import GradientMABAgent  # noqa
from genrl.agents.bandits.multiarmed.thompson import ThompsonSamplingMABAgent  # noqa
from genrl.agents.bandits.multiarmed.ucb import UCBMABAgent  # noqa
from genrl.agents.classical.qlearning.qlearning import QLearning  # noqa
from genrl.agents.classical.sarsa.sarsa import SARSA  # noqa
from genrl.agents.deep.a2c.a2c import A2C  # noqa
from genrl.agents.deep.base.base import BaseAgent  # noqa
from genrl.agents.deep.base.offpolicy import OffPolicyAgent, OffPolicyAgentAC  # noqa
from genrl.agents.deep.base.onpolicy import OnPolicyAgent  # noqa
from genrl.agents.deep.ddpg.ddpg import DDPG  # noqa
from genrl.agents.deep.dqn.base import DQN  # noqa
from genrl.agents.deep.dqn.categorical import CategoricalDQN  # noqa
from genrl.agents.deep.dqn.double import DoubleDQN  # noqa
from genrl.agents.deep.dqn.dueling import DuelingDQN  # noqa
from genrl.agents.deep.dqn.noisy import NoisyDQN  # noqa
from genrl.agents.deep.dqn.prioritized import PrioritizedReplayDQN  # noqa
from genrl.agents.deep.dqn.utils import ddqn_q_target  # noqa
from genrl.agents.deep.ppo1.ppo1 import PPO1  # noqa
from genrl.agents.deep.sac.sac import SAC  # noqa
from genrl.agents.deep.td3.td3 import TD3  # noqa
from genrl.agents.deep.vpg.vpg import VPG  # noqa

from genrl.agents.bandits.multiarmed.base import MABAgent  # noqa; noqa; noqa
