from .conditional_flow_matching import *
from .version import __version__
