"""Activation functions linking network output to estimates with architecturally enforced properties."""

from .ordered import Ordered
from .ordered_quantiles import OrderedQuantiles
from .cholesky_factor import CholeskyFactor
from .positive_definite import PositiveDefinite

from ..utils._docs import _add_imports_to_all

_add_imports_to_all(include_modules=[])
