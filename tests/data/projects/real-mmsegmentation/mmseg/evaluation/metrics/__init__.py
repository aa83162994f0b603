# Copyright (c) OpenMMLab. All rights reserved.
from .citys_metric import CityscapesMetric
from .depth_metric import DepthMetric
from .iou_metric import IoUMetric

__all__ = ['IoUMetric', 'CityscapesMetric', 'DepthMetric']
