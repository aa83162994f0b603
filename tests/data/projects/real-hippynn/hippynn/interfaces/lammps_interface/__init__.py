"""
For using hippynn with LAMMPS.

"""
from .mliap_interface import MLIAPInterface
