"""
PyTorch modules used in IRTorch.
"""
from .negation_layer import NegationLayer
from .softplus_linear import SoftplusLinear
from .monotone_polynomial import MonotonePolynomialModule
from .rational_quadratic_spline import RationalQuadraticSpline
from .neural_spline_flow import NeuralSplineFlow
from .b_spline import BSplineBasisFunction
from .gaussian_mixture_model import GaussianMixtureModel
