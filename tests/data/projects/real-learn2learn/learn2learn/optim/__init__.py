#!/usr/bin/env python3

"""
A set of utilities to write differentiable optimization algorithms.
"""

from .parameter_update import ParameterUpdate
from .learnable_optimizer import LearnableOptimizer
from .update_rules import *
from .transforms import *
