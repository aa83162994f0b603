from euclid.settings import xp

from .optimizer import Optimizer

class SGD(Optimizer):
    name = "SGD"
    def __init__(self, learning_rate=0.001):
        super().__init__(learning_rate)

    def step(self):
        for p in self.parameters:
            if p.grad is not None:
                p.data -= self.learning_rate * p.grad