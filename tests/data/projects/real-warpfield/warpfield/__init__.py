"""
.. include:: ../../README.md
"""

from . import register, utils
from .register import register_volumes, Recipe
from .utils import load_data
