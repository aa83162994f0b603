from .cubic import cubic_spline, unconstrained_cubic_spline
from .linear import linear_spline, unconstrained_linear_spline
from .quadratic import (
    quadratic_spline,
    unconstrained_quadratic_spline,
)
from .rational_quadratic import (
    rational_quadratic_spline,
    unconstrained_rational_quadratic_spline,
)
