from genrl.bandit.agents.cb_agents.common.bayesian import BayesianLinear  # noqa
from genrl.bandit.agents.cb_agents.common.bayesian import BayesianNNBanditModel  # noqa
from genrl.bandit.agents.cb_agents.common.neural import NeuralBanditModel  # noqa
from genrl.bandit.agents.cb_agents.common.transition import TransitionDB  # noqa
