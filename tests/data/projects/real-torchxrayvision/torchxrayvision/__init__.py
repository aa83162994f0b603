from . import datasets
from . import models
from . import baseline_models
from . import autoencoders
from . import utils

from ._version import __version__
