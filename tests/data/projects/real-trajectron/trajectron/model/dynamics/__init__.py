from .dynamic import Dynamic
from .single_integrator import SingleIntegrator
from .unicycle import Unicycle
from .linear import Linear
