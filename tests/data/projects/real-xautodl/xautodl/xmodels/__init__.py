#####################################################
# Copyright (c) Xuanyi Dong [GitHub D-X-Y], 2021.06 #
#####################################################
# The models in this folder is written with xlayers #
#####################################################

from .core import *
