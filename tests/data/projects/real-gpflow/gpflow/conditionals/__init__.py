from . import conditionals, multioutput, sample_conditionals
from .dispatch import conditional, sample_conditional
from .uncertain_conditionals import uncertain_conditional
from .util import base_conditional

__all__ = [
    "base_conditional",
    "conditional",
    "conditionals",
    "dispatch",
    "multioutput",
    "sample_conditional",
    "sample_conditionals",
    "uncertain_conditional",
    "uncertain_conditionals",
    "util",
]
