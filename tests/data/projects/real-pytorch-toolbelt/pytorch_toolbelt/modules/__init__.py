from __future__ import absolute_import

from .simple import *
from .activations import *
from .coord_conv import *
from .dropblock import *
from .dsconv import *
from .fpn import *
from .identity import *
from .ocnet import *
from .pooling import *
from .scse import *
from .srm import *
from .unet import *
from .upsample import *
from .encoders import *
from .decoders import *
from .initialization import *
from .normalization import *

from .heads import *
