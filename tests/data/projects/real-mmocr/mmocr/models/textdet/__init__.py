# Copyright (c) OpenMMLab. All rights reserved.
from .data_preprocessors import *  # NOQA
from .detectors import *  # NOQA
from .heads import *  # NOQA
from .module_losses import *  # NOQA
from .necks import *  # NOQA
from .postprocessors import *  # NOQA
