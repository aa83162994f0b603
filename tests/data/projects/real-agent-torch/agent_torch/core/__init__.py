from .config import Configurator
from .registry import Registry
from .runner import Runner
from .controller import Controller
from .initializer import Initializer

from .version import __version__

from .distributions import distributions
from .helpers.soft import *
