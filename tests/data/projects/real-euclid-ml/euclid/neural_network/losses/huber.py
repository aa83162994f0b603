from .loss import Loss
from euclid.core.math import abs, where, mean
from euclid.core.tensor import Tensor

class Huber(Loss):
    name = "Huber"

    def __init__(self, delta=1.0):
        self.delta = delta

    def forward(self, prediction, target):
        error = prediction - target
        abs_error = abs(error)

        quadratic = 0.5 * (error ** 2)
        linear = self.delta * (abs_error - 0.5 * self.delta)

        condition = abs_error <= Tensor(self.delta)

        return mean(
            where(
                condition,
                quadratic,
                linear
            )
        )