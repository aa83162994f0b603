# File: __init__.py
# Created Date: Sunday December 4th 2022
# Author: Steven Atkinson (steven@atkinson.mn)

"""
Code for standardized training with NAM
"""

# from . import gui  # noqa F401  # Must explicitly load
from . import colab  # noqa F401
from . import core  # noqa F401
from . import metadata  # noqa F401
