r"""Inference components such as estimators, training losses and MCMC samplers."""

from .amnre import *
from .bnre import *
from .cnre import *
from .dcp import *
from .fmpe import *
from .mcmc import *
from .npe import *
from .nre import *
