# flake8: noqa
from .alignment import *
from .detection import *
from .recognition import *
from .tracking import *
from .utils import *
from .visualization import *
