from .base import *  # NOQA
from .writers import *  # NOQA
from .loaders import *  # NOQA
from .utils import *  # NOQA
from .convert import *  # NOQA
