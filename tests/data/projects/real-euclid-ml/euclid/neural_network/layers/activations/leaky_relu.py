from euclid.settings import xp

from .activation import Activation


class LeakyReLU(Activation):

    name = "LeakyReLU"

    def __init__(self, slope=0.2):
        self.slope = slope

    def forward(self, x):
        return x.maximum(x * self.slope)
    def get_config(self):
        return {
            "slope": self.slope
        }