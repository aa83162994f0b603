from __future__ import absolute_import

from .deeplab_v3 import *
from .deeplab_v3_plus import *
from .fpn import *
from .pyramid_pooling import *
from .unet import *
from .can import *
from .bifpn import *
