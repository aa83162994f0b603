__all__ = ['cvxpy', 'pdipm']

from . import cvxpy
