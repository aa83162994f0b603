# Copyright (c) OpenMMLab. All rights reserved.
from .shape_bias_label import ShapeBiasMetric

__all__ = ['ShapeBiasMetric']
