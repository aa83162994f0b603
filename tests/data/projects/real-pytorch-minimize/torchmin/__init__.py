from ._version import __version__
from .minimize import minimize
from .minimize_constr import minimize_constr
from .lstsq import least_squares
from .optim import Minimizer, ScipyMinimizer

__all__ = ['minimize', 'minimize_constr', 'least_squares',
           'Minimizer', 'ScipyMinimizer']
