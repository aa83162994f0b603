from euclid.settings import xp

from .optimizer import Optimizer

class RMSProp(Optimizer):
    name = "RMSProp"

    def __init__(self, learning_rate=0.001, beta=0.9, epsilon=1e-8):
        super().__init__( learning_rate)

        self.beta = beta
        self.epsilon = epsilon
        self.cache = {}

    def step(self):
        for i, (param, grad) in enumerate(zip([p.data for p in self.parameters], [p.grad for p in self.parameters])):
            if i not in self.cache:
                self.cache[i] = xp.zeros_like(param)

            self.cache[i] = (
                self.beta * self.cache[i]
                + (1 - self.beta) * grad**2
            )

            param -= (
                self.learning_rate
                * grad
                / (xp.sqrt(self.cache[i]) + self.epsilon)
            )