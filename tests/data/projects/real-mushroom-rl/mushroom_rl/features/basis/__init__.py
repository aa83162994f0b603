from .gaussian_rbf import GaussianRBF
from .polynomial import PolynomialBasis
from .fourier import FourierBasis

__all__ = ['GaussianRBF', 'PolynomialBasis', 'FourierBasis']
