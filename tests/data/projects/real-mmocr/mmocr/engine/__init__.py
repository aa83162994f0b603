# Copyright (c) OpenMMLab. All rights reserved.
from .hooks import *  # NOQA
