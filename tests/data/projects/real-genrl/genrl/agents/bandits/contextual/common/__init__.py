from genrl.agents.bandits.contextual.common.bayesian import (  # noqa
    BayesianLinear,
    BayesianNNBanditModel,
)
from genrl.agents.bandits.contextual.common.neural import NeuralBanditModel  # noqa
from genrl.agents.bandits.contextual.common.transition import TransitionDB  # noqa
