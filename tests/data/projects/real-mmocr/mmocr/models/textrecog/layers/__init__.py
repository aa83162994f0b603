# Copyright (c) OpenMMLab. All rights reserved.
from .conv_layer import BasicBlock, Bottleneck
from .dot_product_attention_layer import DotProductAttentionLayer
from .lstm_layer import BidirectionalLSTM
from .position_aware_layer import PositionAwareLayer
from .robust_scanner_fusion_layer import RobustScannerFusionLayer
from .satrn_layers import Adaptive2DPositionalEncoding, SATRNEncoderLayer

__all__ = [
    'BidirectionalLSTM', 'Adaptive2DPositionalEncoding', 'BasicBlock',
    'Bottleneck', 'RobustScannerFusionLayer', 'DotProductAttentionLayer',
    'PositionAwareLayer', 'SATRNEncoderLayer'
]
