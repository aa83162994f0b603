# Copyright (c) 2019, Adobe Inc. All rights reserved.
#
# This work is licensed under the Creative Commons Attribution-NonCommercial-ShareAlike
# 4.0 International Public License. To view a copy of this license, visit
# https://creativecommons.org/licenses/by-nc-sa/4.0/legalcode.

from .blurpool import *
from .util import *
from .alexnet import *
from .densenet import *
from .mobilenet import *
from .resnet import *
from .vgg import *
