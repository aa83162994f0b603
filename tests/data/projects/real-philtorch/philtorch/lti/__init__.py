"""Filters and state-space models with time-invariant coefficients.

The filtering functions follow :mod:`scipy.signal` where they share a name,
with the differences noted in each docstring.
"""

from .delay import delay_state_space
from .filtering import comb_filter, filtfilt, fir, lfilter, lfilter_zi, lfiltic
from .interp import cubic_spline
from .recur import linear_recurrence
from .ssm import diag_state_space, state_space, state_space_recursion

__all__ = [
    "lfilter",
    "lfilter_zi",
    "lfiltic",
    "filtfilt",
    "state_space_recursion",
    "diag_state_space",
    "state_space",
    "delay_state_space",
    "fir",
    "linear_recurrence",
    "comb_filter",
    "cubic_spline",
]
