"""Path modules for flow matching on manifolds."""

from .prob_path import ProbPath

__all__ = ['ProbPath']
from .gaussian_path import GaussianProbPath
from .condot_path import CondOTPath

__all__ = [
    'ProbPath',
    'GaussianProbPath',
    'CondOTPath'
]
