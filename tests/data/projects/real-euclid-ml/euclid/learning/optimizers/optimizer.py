from euclid.settings import xp


class Optimizer:
    name = "Optimizer"

    def __init__(self, learning_rate=0.001):
        self.parameters=None
        self.learning_rate = learning_rate
    def set_parameters(self, parameters):
        self.parameters = parameters
    def step(self):

        raise NotImplementedError

    def zero_grad(self):
        for param in self.parameters:
            param.grad = 0