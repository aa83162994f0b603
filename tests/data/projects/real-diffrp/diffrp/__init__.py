from .loaders import *
from .materials import *
from .rendering import *
from .resources import *
from .scene import *
from .utils import *
from .utils.cache import *
from .version import __version__
