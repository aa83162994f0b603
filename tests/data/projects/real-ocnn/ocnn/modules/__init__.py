# --------------------------------------------------------
# Octree-based Sparse Convolutional Neural Networks
# Copyright (c) 2022 Peng-Shuai Wang <wangps@hotmail.com>
# Licensed under The MIT License [see LICENSE for details]
# Written by Peng-Shuai Wang
# --------------------------------------------------------

from .modules import (InputFeature,
                      OctreeConvBn, OctreeConvBnRelu, OctreeDeconvBnRelu,
                      Conv1x1, Conv1x1Bn, Conv1x1BnRelu, FcBnRelu,
                      OctreeConvGn, OctreeConvGnRelu, OctreeDeconvGnRelu,
                      Conv1x1, Conv1x1Gn, Conv1x1GnRelu)
from .resblocks import (OctreeResBlock, OctreeResBlock2, OctreeResBlockGn,
                        OctreeResBlocks,)

__all__ = [
    'InputFeature',
    'OctreeConvBn', 'OctreeConvBnRelu', 'OctreeDeconvBnRelu',
    'Conv1x1', 'Conv1x1Bn', 'Conv1x1BnRelu', 'FcBnRelu',
    'OctreeConvGn', 'OctreeConvGnRelu', 'OctreeDeconvGnRelu',
    'Conv1x1', 'Conv1x1Gn', 'Conv1x1GnRelu',
    'OctreeResBlock', 'OctreeResBlock2', 'OctreeResBlockGn',
    'OctreeResBlocks',
]

classes = __all__
