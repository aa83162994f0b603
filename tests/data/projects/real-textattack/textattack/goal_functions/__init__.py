""".. _goal_functions:

Goal Functions
==================================================================

Goal Functions determine if an attack has been successful.
"""

from .goal_function import GoalFunction

from .classification import *
from .text import *
from .custom import *
