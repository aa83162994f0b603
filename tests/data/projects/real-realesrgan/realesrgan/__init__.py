# flake8: noqa
from .archs import *
from .data import *
from .models import *
from .utils import *
from .version import *
