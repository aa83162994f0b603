"""
This submodule contains MPI operations. For more information about MPI visit: https://mpi4py.readthedocs.io/en/stable/
"""
from .mpi import *
