# Copyright (c) OpenMMLab. All rights reserved.
from .flownet_encoder import CorrEncoder, FlowNetEncoder, FlowNetSDEncoder
from .liteflownet_encoder import NetC
from .pwcnet_encoder import PWCNetEncoder
from .raft_encoder import RAFTEncoder

__all__ = [
    'FlowNetEncoder', 'PWCNetEncoder', 'RAFTEncoder', 'NetC',
    'FlowNetSDEncoder', 'CorrEncoder'
]
