# Copyright (c) OpenMMLab. All rights reserved.
from .basic_encoder import BasicConvBlock, BasicEncoder
from .correlation_block import CorrBlock
from .densenet import BasicDenseBlock, DenseLayer
from .estimators_link import BasicLink, LinkOutput
from .occlusion_estimation import occlusion_estimation
from .res_layer import BasicBlock, Bottleneck, ResLayer

__all__ = [
    'ResLayer', 'BasicBlock', 'Bottleneck', 'BasicLink', 'LinkOutput',
    'DenseLayer', 'BasicDenseBlock', 'BasicEncoder', 'BasicConvBlock',
    'CorrBlock', 'occlusion_estimation'
]
