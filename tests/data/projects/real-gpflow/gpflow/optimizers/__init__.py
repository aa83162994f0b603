from . import natgrad
from .mcmc import SamplingHelper
from .natgrad import *
from .scipy import Scipy

__all__ = [
    "NaturalGradient",
    "SamplingHelper",
    "Scipy",
    "XiNat",
    "XiSqrtMeanVar",
    "XiTransform",
    "mcmc",
    "natgrad",
    "scipy",
]
