from .loss import *  # NOQA
from .evaluation import *  # NOQA
from .angle import *  # NOQA
from .version import __version__  # NOQA
