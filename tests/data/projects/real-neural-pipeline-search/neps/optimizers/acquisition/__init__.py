from neps.optimizers.acquisition.cost_cooling import cost_cooled_acq
from neps.optimizers.acquisition.pibo import pibo_acquisition
from neps.optimizers.acquisition.weighted_acquisition import WeightedAcquisition
from neps.optimizers.acquisition.wrapped_acquisition import WrappedAcquisition

__all__ = [
    "WeightedAcquisition",
    "WrappedAcquisition",
    "cost_cooled_acq",
    "pibo_acquisition",
]
