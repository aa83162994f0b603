# Copyright (c) OpenMMLab. All rights reserved.

from .transforms import (flip_keypoints, flip_keypoints_custom_center,
                         keypoint_clip_border)

__all__ = [
    'flip_keypoints', 'flip_keypoints_custom_center', 'keypoint_clip_border'
]
