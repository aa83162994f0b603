from euclid.settings import xp

from ..layer import Layer


class Activation(Layer):
    name = ""

    def forward(self, x):
        return x
    def get_config(self):
        return super().get_config()