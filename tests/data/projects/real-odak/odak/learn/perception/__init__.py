"""
``odak.learn.perception``

Defines a number of different perceptual loss functions, which can be used to optimize images perceptually.
"""

from .color_conversion import *
from .steerable_pyramid_filters import *
from .spatial_steerable_pyramid import *
from .foveation import *
from .radially_varying_blur import *
from .metameric_loss import *
from .metameric_loss_uniform import *
from .metamer_mse_loss import *
from .blur_loss import *
from .image_quality_losses import *
from .learned_perceptual_losses import *
from .cvd_loss_functions import *
from .contrast import *
