"""
This module represents a pytorch re-implementation of scipy's
`scipy.optimize._lsq` module. Some of the code is borrowed directly
from the scipy library (all rights reserved).
"""
from .least_squares import least_squares