from .unet import *
from .backbone import *
