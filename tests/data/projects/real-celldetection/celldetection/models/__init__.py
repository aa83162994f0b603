"""
This submodule contains model definitions and common modules.
"""
from .commons import *
from .unet import *
from .resnet import *
from .cpn import *
from .fpn import *
from .inference import *
from .mobilenetv3 import *
from .normalization import *
from .filters import *
from .features import *
from .ppm import *
from .loss import *
from .convnext import *
from .convnextv2 import *
from .densenet import *
from .mamba import *
from .manet import *
from .smp import *
from .timmodels import *
from .lightning_cpn import *

from ..util.util import NormProxy
