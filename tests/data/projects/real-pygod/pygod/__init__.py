from . import detector
from . import nn
from . import generator
from . import metric
from . import utils
from .version import __version__

__all__ = ['detector', 'nn', 'generator', 'metric', 'utils']
