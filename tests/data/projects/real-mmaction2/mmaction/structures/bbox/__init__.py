# Copyright (c) OpenMMLab. All rights reserved.
from .bbox_target import bbox_target
from .transforms import bbox2result

__all__ = ['bbox_target', 'bbox2result']
