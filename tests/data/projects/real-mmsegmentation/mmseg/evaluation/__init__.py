# Copyright (c) OpenMMLab. All rights reserved.
from .metrics import CityscapesMetric, DepthMetric, IoUMetric

__all__ = ['IoUMetric', 'CityscapesMetric', 'DepthMetric']
