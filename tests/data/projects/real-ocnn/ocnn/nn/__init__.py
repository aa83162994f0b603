# --------------------------------------------------------
# Octree-based Sparse Convolutional Neural Networks
# Copyright (c) 2022 Peng-Shuai Wang <wangps@hotmail.com>
# Licensed under The MIT License [see LICENSE for details]
# Written by Peng-Shuai Wang
# --------------------------------------------------------

from .octree2vox import octree2voxel, Octree2Voxel
from .octree2col import octree2col, col2octree
from .octree_pad import octree_pad, octree_depad
from .octree_interp import (octree_nearest_pts, octree_linear_pts,
                            OctreeInterp, OctreeUpsample)
from .octree_pool import (octree_max_pool, OctreeMaxPool,
                          octree_max_unpool, OctreeMaxUnpool,
                          octree_global_pool, OctreeGlobalPool,
                          octree_avg_pool, OctreeAvgPool,)
from .octree_conv import OctreeConv, OctreeDeconv
from .octree_conv_s import OctreeConvK1, OctreeConvK2, OctreeDeconvK2
from .octree_gconv import OctreeGroupConv
from .octree_dwconv import OctreeDWConv
from .octree_norm import (OctreeBatchNorm, OctreeGroupNorm,
                          OctreeInstanceNorm, OctreeNorm)
from .octree_drop import OctreeDropPath, DropPath
from .octree_align import search_value, octree_align
from .octree_conv_t import OctreeConvTriton, OctreeConvT, convert_conv_triton


__all__ = [
    'octree2voxel',
    'octree2col', 'col2octree',
    'octree_pad', 'octree_depad',
    'octree_nearest_pts', 'octree_linear_pts',
    'octree_max_pool', 'octree_max_unpool',
    'octree_global_pool', 'octree_avg_pool',
    'Octree2Voxel',
    'OctreeMaxPool', 'OctreeMaxUnpool',
    'OctreeGlobalPool', 'OctreeAvgPool',
    'OctreeConv', 'OctreeDeconv',
    'OctreeConvK1', 'OctreeConvK2', 'OctreeDeconvK2',
    'OctreeGroupConv', 'OctreeDWConv',
    'OctreeInterp', 'OctreeUpsample',
    'OctreeInstanceNorm', 'OctreeBatchNorm', 'OctreeGroupNorm', 'OctreeNorm',
    'OctreeDropPath', 'DropPath',
    'search_value', 'octree_align',
    'OctreeConvTriton', 'OctreeConvT', 'convert_conv_triton',
]

classes = __all__
