from ._version import __version__
from .experiment import *
from .heatmap import *
from .hook import *
from .utils import *
from .trace import *
