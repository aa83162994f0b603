# --------------------------------------------------------
# Octree-based Sparse Convolutional Neural Networks
# Copyright (c) 2022 Peng-Shuai Wang <wangps@hotmail.com>
# Licensed under The MIT License [see LICENSE for details]
# Written by Peng-Shuai Wang
# --------------------------------------------------------

from .shuffled_key import key2xyz, xyz2key
from .points import Points, merge_points
from .octree import Octree, merge_octrees, init_octree

__all__ = [
    'key2xyz',
    'xyz2key',
    'Points',
    'Octree',
    'merge_points',
    'merge_octrees',
    'init_octree',
]

classes = __all__
