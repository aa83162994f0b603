# Copyright (c) OpenMMLab. All rights reserved.
from .sampler import BasePixelSampler, OHEMPixelSampler, build_pixel_sampler
from .seg_data_sample import SegDataSample

__all__ = [
    'SegDataSample', 'BasePixelSampler', 'OHEMPixelSampler',
    'build_pixel_sampler'
]
