# Copyright (c) OpenMMLab. All rights reserved.
from .basic_block import BasicBlock, Bottleneck
from .embed import PatchEmbed
from .encoding import Encoding
from .inverted_residual import InvertedResidual, InvertedResidualV3
from .make_divisible import make_divisible
from .point_sample import get_uncertain_point_coords_with_randomness
from .ppm import DAPPM, PAPPM
from .res_layer import ResLayer
from .se_layer import SELayer
from .self_attention_block import SelfAttentionBlock
from .shape_convert import (nchw2nlc2nchw, nchw_to_nlc, nlc2nchw2nlc,
                            nlc_to_nchw)
from .up_conv_block import UpConvBlock

# isort: off
from .wrappers import Upsample, resize
from .san_layers import MLP, LayerNorm2d, cross_attn_layer

__all__ = [
    'ResLayer', 'SelfAttentionBlock', 'make_divisible', 'InvertedResidual',
    'UpConvBlock', 'InvertedResidualV3', 'SELayer', 'PatchEmbed',
    'nchw_to_nlc', 'nlc_to_nchw', 'nchw2nlc2nchw', 'nlc2nchw2nlc', 'Encoding',
    'Upsample', 'resize', 'DAPPM', 'PAPPM', 'BasicBlock', 'Bottleneck',
    'cross_attn_layer', 'LayerNorm2d', 'MLP',
    'get_uncertain_point_coords_with_randomness'
]
