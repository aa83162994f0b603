from euclid.settings import xp

from .activation import Activation

class Linear(Activation):
    name="Linear"

    def forward(self, x):
        return x
