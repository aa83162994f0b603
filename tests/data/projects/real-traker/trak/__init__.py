from .traker import TRAKer
from .utils import test_install

__version__ = "0.3.2"
VERSION = __version__
