# Copyright (c) OpenMMLab. All rights reserved.
from .bottomup import BottomupPoseEstimator
from .pose_lifter import PoseLifter
from .topdown import TopdownPoseEstimator

__all__ = ['TopdownPoseEstimator', 'BottomupPoseEstimator', 'PoseLifter']
