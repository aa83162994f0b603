from .realnvp import RealNVP
from .nsf import CouplingNSF
from .autoregressive import (
    MaskedAffineAutoregressiveFlow,
    MaskedPiecewiseLinearAutoregressiveFlow,
    MaskedPiecewiseQuadraticAutoregressiveFlow,
    MaskedPiecewiseCubicAutoregressiveAutoregressiveFlow,
    MaskedPiecewiseRationalQuadraticAutoregressiveFlow,
)
