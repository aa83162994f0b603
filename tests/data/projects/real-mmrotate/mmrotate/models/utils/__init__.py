# Copyright (c) OpenMMLab. All rights reserved.
from .enn import (build_enn_divide_feature, build_enn_feature,
                  build_enn_norm_layer, build_enn_trivial_feature, ennAvgPool,
                  ennConv, ennInterpolate, ennMaxPool, ennReLU, ennTrivialConv)
from .orconv import ORConv2d
from .ripool import RotationInvariantPooling

__all__ = [
    'ORConv2d', 'RotationInvariantPooling', 'ennConv', 'ennReLU', 'ennAvgPool',
    'ennMaxPool', 'ennInterpolate', 'build_enn_divide_feature',
    'build_enn_feature', 'build_enn_norm_layer', 'build_enn_trivial_feature',
    'ennTrivialConv'
]
