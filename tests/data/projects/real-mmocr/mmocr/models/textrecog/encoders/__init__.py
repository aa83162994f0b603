# Copyright (c) OpenMMLab. All rights reserved.
from .abi_encoder import ABIEncoder
from .aster_encoder import ASTEREncoder
from .base import BaseEncoder
from .channel_reduction_encoder import ChannelReductionEncoder
from .nrtr_encoder import NRTREncoder
from .sar_encoder import SAREncoder
from .satrn_encoder import SATRNEncoder
from .svtr_encoder import SVTREncoder

__all__ = [
    'SAREncoder', 'NRTREncoder', 'BaseEncoder', 'ChannelReductionEncoder',
    'SATRNEncoder', 'ABIEncoder', 'SVTREncoder', 'ASTEREncoder'
]
