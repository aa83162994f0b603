from ..layer import Layer
import euclid.core.math as math
from euclid.core.tensor import Tensor
from euclid.settings import xp


class LayerNorm(Layer):

    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()

        self.normalized_shape = normalized_shape
        self.eps = eps

        self.gamma = Tensor(
            xp.ones(normalized_shape),
            requires_grad=True,
        )

        self.beta = Tensor(
            xp.zeros(normalized_shape),
            requires_grad=True,
        )

    def forward(self, x):
        mean = math.mean(x, axis=-1, keepdims=True)

        variance = math.mean(
            (x - mean) ** 2,
            axis=-1,
            keepdims=True
        )

        x_norm = (
            (x - mean)
            / math.sqrt(variance + self.eps)
        )

        return self.gamma * x_norm + self.beta

    def parameters(self):
        return [self.gamma, self.beta]

    def get_config(self):
        return {
            "normalized_shape": self.normalized_shape,
            "eps": self.eps,
        }