from .quantize import Quantize, StochasticRounding
from .reset_mechanism import MembraneReset, MembraneSubtract
from .spike_generation import MaxSpike, MultiSpike, SingleSpike
from .surrogate_gradient_fn import (
    Gaussian,
    Heaviside,
    MultiGaussian,
    PeriodicExponential,
    SingleExponential,
)
