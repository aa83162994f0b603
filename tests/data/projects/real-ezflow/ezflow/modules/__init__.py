from .base_module import BaseModule
from .blocks import *
from .build import MODULE_REGISTRY, build_module
from .dap import DisplacementAwareProjection
from .models import *
from .unet import *
from .units import *
