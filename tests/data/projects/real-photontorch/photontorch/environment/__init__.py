""" environment

The `Environment` class contains all the necessary parameters to initialize a
network for a simulation.

"""

from .environment import Environment
from .environment import set_environment
from .environment import current_environment
