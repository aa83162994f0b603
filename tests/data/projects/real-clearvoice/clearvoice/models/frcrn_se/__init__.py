from .complex_nn import *
from .unet import *
