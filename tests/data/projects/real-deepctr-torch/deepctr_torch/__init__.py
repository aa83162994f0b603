from . import layers
from . import models
from .utils import check_version

__version__ = '0.3.0'
check_version(__version__)
