from . import (
    autoregressive,
    coupling,
    wrapper,
)

from .wrapper import (
    CoupledRationalQuadraticSpline,
    AutoregressiveRationalQuadraticSpline,
    CircularCoupledRationalQuadraticSpline,
    CircularAutoregressiveRationalQuadraticSpline,
)
