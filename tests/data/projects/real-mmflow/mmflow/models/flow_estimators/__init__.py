# Copyright (c) OpenMMLab. All rights reserved.
from .flownet import FlowNetC, FlowNetS
from .flownet2 import FlowNet2, FlowNetCSS
from .irrpwc import IRRPWC
from .liteflownet import LiteFlowNet
from .maskflownet import MaskFlowNet, MaskFlowNetS
from .pwcnet import PWCNet
from .raft import RAFT

__all__ = [
    'FlowNetC', 'FlowNetS', 'LiteFlowNet', 'PWCNet', 'MaskFlowNetS', 'RAFT',
    'IRRPWC', 'FlowNet2', 'FlowNetCSS', 'MaskFlowNet'
]
