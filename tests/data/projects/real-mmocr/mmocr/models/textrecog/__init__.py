# Copyright (c) OpenMMLab. All rights reserved.
from .backbones import *  # NOQA
from .data_preprocessors import *  # NOQA
from .decoders import *  # NOQA
from .encoders import *  # NOQA
from .layers import *  # NOQA
from .module_losses import *  # NOQA
from .plugins import *  # NOQA
from .postprocessors import *  # NOQA
from .preprocessors import *  # NOQA
from .recognizers import *  # NOQA
