# Copyright (c) OpenMMLab. All rights reserved.
from .backbones import *  # NOQA
from .dictionary import *  # NOQA
from .layers import *  # NOQA
from .losses import *  # NOQA
from .modules import *  # NOQA
from .plugins import *  # NOQA
