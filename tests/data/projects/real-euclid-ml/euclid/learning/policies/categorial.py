from .policy import Policy
from euclid.core.tensor import Tensor
from euclid.settings import xp
from euclid.core import math
class CategoricalPolicy(Policy):

    def __init__(self, network):
        super().__init__(network)

    def sample_action(self, state):

        probabilities = self.forward(state)

        probs = probabilities.data.flatten()

        action = xp.random.choice(
            len(probs),
            p=probs
        )

        log_prob = self.log_probability(
            state,
            action
        )

        return (
            action,
            log_prob
        )

    def log_probability(self, state, action):

        probabilities = self.forward(state)

        probability = probabilities[action]

        return math.log(probability)