r"""Likelihood-free AMortized Posterior Estimation (LAMPE)"""

__version__ = '0.9.0'

from . import data, diagnostics, inference, masks, nn, utils
