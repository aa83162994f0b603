# Copyright (c) OpenMMLab. All rights reserved.
from .extractors import *  # NOQA
from .heads import *  # NOQA
from .module_losses import *  # NOQA
from .postprocessors import *  # NOQA
