from .interpolation_base import InterpolationBase
from .interpolation_cubic import natural_cubic_spline_coeffs, natural_cubic_coeffs, CubicSpline
from .interpolation_linear import linear_interpolation_coeffs, LinearInterpolation
from .interpolation_hermite_cubic_bdiff import hermite_cubic_coefficients_with_backward_differences
from .log_ode import logsignature_windows, logsig_windows
from .misc import TupleControl
from .solver import cdeint

__version__ = "0.2.5"
