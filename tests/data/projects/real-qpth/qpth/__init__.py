__all__ = ['qp', 'util', 'solvers']

from . import qp
from . import solvers
