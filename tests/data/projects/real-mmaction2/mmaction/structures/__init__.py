# Copyright (c) OpenMMLab. All rights reserved.
from .action_data_sample import ActionDataSample
from .bbox import bbox2result, bbox_target

__all__ = [
    'ActionDataSample',
    'bbox2result',
    'bbox_target',
]
