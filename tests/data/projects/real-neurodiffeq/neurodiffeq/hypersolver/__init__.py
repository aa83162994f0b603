from .hypersolver import Hypersolver
from .numerical_solvers import Euler
