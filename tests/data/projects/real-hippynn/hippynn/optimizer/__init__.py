"""
Functionality for Batch geometry optimization of configurations under a potential energy surface..


This module is only available if the `ase` package is installed.

Contributed by Shuhao Zhang (CMU, LANL)

"""

from .algorithms import BFGSv1, BFGSv2, BFGSv3, FIRE, NewtonRaphson
from .batch_optimizer import Optimizer
