from . import camera
from .common import *
from .pose import *
from .samplers import *
