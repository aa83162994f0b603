"""
This module implements psychophysical paradigms to experiment with deep networks.
"""

from .adaptive_psychophysics import *
from .paradigm_utils import *
from . import forced_choice
