from .utils import broadcast_shape
from .zero_inflated import (
    ZeroInflatedDistribution,
    ZeroInflatedPoisson,
    ZeroInflatedNegativeBinomial,
)
from .piecewise_linear import PiecewiseLinear, TransformedPiecewiseLinear
from .implicit_quantile import ImplicitQuantile, TransformedImplicitQuantile
