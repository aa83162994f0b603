##+++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++
## Created by: Hang Zhang
## ECE Department, Rutgers University
## Email: zhang.hang@rutgers.edu
## Copyright (c) 2017
##
## This source code is licensed under the MIT-style license found in the
## LICENSE file in the root directory of this source tree
##+++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++

"""Encoding Util Tools"""
from .lr_scheduler import *
from .metrics import *
from .pallete import get_mask_pallete
from .train_helper import *
from .presets import load_image
from .files import *
from .misc import *
from .dist_helper import *
