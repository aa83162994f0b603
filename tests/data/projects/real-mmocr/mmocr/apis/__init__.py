# Copyright (c) OpenMMLab. All rights reserved.
from .inferencers import *  # NOQA
