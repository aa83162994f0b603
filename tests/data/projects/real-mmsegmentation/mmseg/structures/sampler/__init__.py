# Copyright (c) OpenMMLab. All rights reserved.
from .base_pixel_sampler import BasePixelSampler
from .builder import build_pixel_sampler
from .ohem_pixel_sampler import OHEMPixelSampler

__all__ = ['build_pixel_sampler', 'BasePixelSampler', 'OHEMPixelSampler']
