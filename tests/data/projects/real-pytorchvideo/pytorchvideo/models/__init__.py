# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved.

from .csn import create_csn
from .head import ResNetBasicHead, create_res_basic_head
from .masked_multistream import (
    LSTM,
    LearnMaskedDefault,
    MaskedMultiPathWay,
    MaskedSequential,
    MaskedTemporalPooling,
    TransposeMultiheadAttention,
    TransposeTransformerEncoder,
)
from .net import MultiPathWayWithFuse, Net
from .resnet import BottleneckBlock, create_bottleneck_block, create_resnet
from .slowfast import create_slowfast
from .stem import ResNetBasicStem, create_conv_patch_embed, create_res_basic_stem
from .vision_transformers import create_multiscale_vision_transformers
from .weight_init import init_net_weights
