from .minimizer import Minimizer
from .scipy_minimizer import ScipyMinimizer