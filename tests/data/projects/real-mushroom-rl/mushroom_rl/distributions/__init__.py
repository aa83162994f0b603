from .distribution import Distribution
from .gaussian import GaussianDistribution, GaussianDiagonalDistribution, \
    GaussianCholeskyDistribution

__all__ = ['Distribution',
           'GaussianDistribution', 'GaussianDiagonalDistribution',
           'GaussianCholeskyDistribution']
