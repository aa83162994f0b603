"""
Generic code used as utilities and helpers for PyTorch
"""

# ruff: noqa

from .helpers import *
from .sparsification import *
