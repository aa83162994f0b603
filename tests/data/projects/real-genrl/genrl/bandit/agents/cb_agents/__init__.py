from genrl.bandit.agents.cb_agents.base import DCBAgent  # noqa
from genrl.bandit.agents.cb_agents.bootstrap_neural import BootstrapNeuralAgent  # noqa
from genrl.bandit.agents.cb_agents.common import BayesianNNBanditModel  # noqa
from genrl.bandit.agents.cb_agents.common import NeuralBanditModel  # noqa
from genrl.bandit.agents.cb_agents.common import TransitionDB  # noqa
from genrl.bandit.agents.cb_agents.fixed import FixedAgent  # noqa
from genrl.bandit.agents.cb_agents.linpos import LinearPosteriorAgent  # noqa
from genrl.bandit.agents.cb_agents.neural_greedy import NeuralGreedyAgent  # noqa
from genrl.bandit.agents.cb_agents.neural_linpos import (  # noqa,
    NeuralLinearPosteriorAgent,
)
from genrl.bandit.agents.cb_agents.neural_noise_sampling import (  # noqa,
    NeuralNoiseSamplingAgent,
)
from genrl.bandit.agents.cb_agents.variational import VariationalAgent  # noqa
