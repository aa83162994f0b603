# Copyright (c) OpenMMLab. All rights reserved.
from .hand3d_inferencer import Hand3DInferencer
from .mmpose_inferencer import MMPoseInferencer
from .pose2d_inferencer import Pose2DInferencer
from .pose3d_inferencer import Pose3DInferencer
from .utils import get_model_aliases

__all__ = [
    'Pose2DInferencer', 'MMPoseInferencer', 'get_model_aliases',
    'Pose3DInferencer', 'Hand3DInferencer'
]
