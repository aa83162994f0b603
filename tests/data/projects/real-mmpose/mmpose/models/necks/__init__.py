# Copyright (c) OpenMMLab. All rights reserved.
from .channel_mapper import ChannelMapper
from .cspnext_pafpn import CSPNeXtPAFPN
from .fmap_proc_neck import FeatureMapProcessor
from .fpn import FPN
from .gap_neck import GlobalAveragePooling
from .hybrid_encoder import HybridEncoder
from .posewarper_neck import PoseWarperNeck
from .yolox_pafpn import YOLOXPAFPN

__all__ = [
    'GlobalAveragePooling', 'PoseWarperNeck', 'FPN', 'FeatureMapProcessor',
    'ChannelMapper', 'YOLOXPAFPN', 'CSPNeXtPAFPN', 'HybridEncoder'
]
