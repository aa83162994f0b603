from .activation import Activation


class Softmax(Activation):
    name = "Softmax"

    def forward(self, x):
        # subtract max for numerical stability
        x_max = x.max(axis=1, keepdims=True)

        exp_x = (x - x_max).exp()

        return exp_x / exp_x.sum(axis=1, keepdims=True)