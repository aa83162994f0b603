from . import xresnet
from . import unet
from .tvm import *
