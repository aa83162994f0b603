from genrl.bandit.agents.mab_agents.bayesian import BayesianUCBMABAgent  # noqa
from genrl.bandit.agents.mab_agents.epsgreedy import EpsGreedyMABAgent  # noqa
from genrl.bandit.agents.mab_agents.gradient import GradientMABAgent  # noqa
from genrl.bandit.agents.mab_agents.thompson import ThompsonSamplingMABAgent  # noqa
from genrl.bandit.agents.mab_agents.ucb import UCBMABAgent  # noqa

from genrl.bandit.agents.mab_agents.base import MABAgent  # noqa; noqa; noqa
