from . import guides
from . import likelihoods
from . import poutine
from . import priors
from . import util

from .bnn import *
