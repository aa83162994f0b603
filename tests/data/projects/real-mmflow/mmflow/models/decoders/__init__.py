# Copyright (c) OpenMMLab. All rights reserved.
from .context_net import ContextNet
from .flownet_decoder import FlowNetCDecoder, FlowNetSDecoder
from .gma_decoder import GMADecoder
from .irr_refine import FlowRefine, OccRefine, OccShuffleUpsample
from .irrpwc_decoder import IRRPWCDecoder
from .liteflownet_decoder import NetE
from .maskflownet_decoder import MaskFlowNetDecoder, MaskFlowNetSDecoder
from .pwcnet_decoder import PWCNetDecoder
from .raft_decoder import RAFTDecoder

__all__ = [
    'FlowNetCDecoder', 'FlowNetSDecoder', 'PWCNetDecoder',
    'MaskFlowNetSDecoder', 'NetE', 'ContextNet', 'RAFTDecoder', 'FlowRefine',
    'OccRefine', 'OccShuffleUpsample', 'IRRPWCDecoder', 'MaskFlowNetDecoder',
    'GMADecoder'
]
