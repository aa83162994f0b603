from .xresnet import *
from .unet import *
from .tvm import *
