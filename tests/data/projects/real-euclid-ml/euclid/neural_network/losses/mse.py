from euclid.settings import xp

from .loss import Loss

class MSE(Loss):
    name = "Mean Squared Error"

    def forward(self, prediction, target):
        return ((prediction - target) ** 2).mean()

