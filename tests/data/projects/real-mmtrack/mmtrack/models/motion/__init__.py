# Copyright (c) OpenMMLab. All rights reserved.
from .camera_motion_compensation import CameraMotionCompensation
from .flownet_simple import FlowNetSimple
from .kalman_filter import KalmanFilter
from .linear_motion import LinearMotion

__all__ = [
    'FlowNetSimple',
    'CameraMotionCompensation',
    'LinearMotion',
    'KalmanFilter',
]
