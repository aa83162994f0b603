# Copyright (c) OpenMMLab. All rights reserved.
from .badcase_hook import BadCaseAnalysisHook
from .ema_hook import ExpMomentumEMA
from .mode_switch_hooks import RTMOModeSwitchHook, YOLOXPoseModeSwitchHook
from .sync_norm_hook import SyncNormHook
from .visualization_hook import PoseVisualizationHook

__all__ = [
    'PoseVisualizationHook', 'ExpMomentumEMA', 'BadCaseAnalysisHook',
    'YOLOXPoseModeSwitchHook', 'SyncNormHook', 'RTMOModeSwitchHook'
]
