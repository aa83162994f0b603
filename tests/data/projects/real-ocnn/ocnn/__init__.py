# --------------------------------------------------------
# Octree-based Sparse Convolutional Neural Networks
# Copyright (c) 2022 Peng-Shuai Wang <wangps@hotmail.com>
# Licensed under The MIT License [see LICENSE for details]
# Written by Peng-Shuai Wang
# --------------------------------------------------------

from . import octree
from . import nn
from . import modules
from . import models
from . import dataset
from . import utils

__version__ = '2.3.3'

__all__ = [
    'octree',
    'nn',
    'modules',
    'models',
    'dataset',
    'utils'
]
