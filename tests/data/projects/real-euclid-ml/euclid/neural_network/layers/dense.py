from euclid.settings import xp


from euclid.core.tensor import Tensor
from .layer import Layer


class Dense(Layer):
    name = "Dense"

    def __init__(self, ixput_size, output_size):

        limit = 1 / xp.sqrt(ixput_size)

        self.weights = Tensor(
            xp.random.uniform(
                -limit,
                limit,
                (ixput_size, output_size)
            ),
            requires_grad=True
        )

        self.biases = Tensor(
            xp.zeros((1, output_size)),
            requires_grad=True
        )

    def forward(self, x):
        self.ixput = x

        z = (x @ self.weights) + self.biases

        return z

    def parameters(self):
        return [self.weights, self.biases]

    def get_config(self):
        return {
            "ixput_size": self.weights.data.shape[0],
            "output_size": self.weights.data.shape[1]
        }
