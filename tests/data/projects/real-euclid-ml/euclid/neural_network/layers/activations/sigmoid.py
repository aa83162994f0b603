from .activation import Activation
from euclid.core.tensor import Tensor


class Sigmoid(Activation):
    name = "Sigmoid"

    def forward(self, x):
        one = Tensor(1.0)
        return one / (one + (-x).exp())