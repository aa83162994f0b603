from ._version import __version__
from .mapping_utils import *
from .utils import *
from .plot_utils import *