from .policy import Policy
from euclid.core.tensor import Tensor
from euclid.settings import xp
from euclid.core import math
class GaussianPolicy(Policy):

    def __init__(self, network, std=0.3):

        self.network = network
        self.std = std


    def parameters(self):

        return self.network.parameters()


    def forward(self, state):

        return self.network.forward(state)


    def sample_action(self, state):

        mean = self.forward(state)

        noise = Tensor(
            xp.random.normal(
                0,
                self.std,
                mean.data.shape
            )
        )

        action = mean + noise

        action = action.clip(
            Tensor(-1.0),
            Tensor(1.0)
        )

        log_prob = self.log_probability(
            state,
            action
        )

        return (
            action.data.flatten(),
            log_prob
        )


    def log_probability(self, state, action):

        mean = self.forward(state)

        if not isinstance(action, Tensor):
            action = Tensor(action)

        return -0.5 * math.sum(
            ((action - mean) / Tensor(self.std)) ** 2
        )

