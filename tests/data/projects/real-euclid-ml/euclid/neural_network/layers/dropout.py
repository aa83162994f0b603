from euclid.settings import xp


from euclid.core.tensor import Tensor
from .layer import Layer


class Dropout(Layer):
    name = "Dropout"

    def __init__(self, rate):
        super().__init__()
        self.rate = rate

    def forward(self, x):
        if not self.training:
            return x

        mask = Tensor(
            (
                xp.random.rand(*x.data.shape) >= self.rate
            ).astype(x.data.dtype) / (1 - self.rate),
            requires_grad=False
        )

        return x * mask

    def parameters(self):
        return []
    def get_config(self):
        return {
            "rate": self.rate
        }