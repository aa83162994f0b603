from genrl.bandit.agents.cb_agents import BootstrapNeuralAgent  # noqa,; noqa,; noqa
from genrl.bandit.agents.cb_agents import DCBAgent  # noqa
from genrl.bandit.agents.cb_agents import FixedAgent  # noqa
from genrl.bandit.agents.cb_agents import LinearPosteriorAgent  # noqa
from genrl.bandit.agents.cb_agents import NeuralGreedyAgent  # noqa
from genrl.bandit.agents.cb_agents import VariationalAgent  # noqa
from genrl.bandit.agents.cb_agents import (
    NeuralLinearPosteriorAgent,
    NeuralNoiseSamplingAgent,
)
from genrl.bandit.agents.mab_agents import UCBMABAgent  # noqa
from genrl.bandit.agents.mab_agents import (
    BayesianUCBMABAgent,
    EpsGreedyMABAgent,
    ThompsonSamplingMABAgent,
)

from genrl.bandit.agents.mab_agents import GradientMABAgent  # noqa; noqa; noqa; noqa

from genrl.bandit.agents.mab_agents import MABAgent  # noqa; noqa; noqa
