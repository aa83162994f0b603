# Copyright (c) OpenMMLab. All rights reserved.
from .rotate_random_sampler import RRandomSampler

__all__ = ['RRandomSampler']
