from .plot import *
from .render import *
