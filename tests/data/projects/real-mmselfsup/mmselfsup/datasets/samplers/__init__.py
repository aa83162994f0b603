# Copyright (c) OpenMMLab. All rights reserved.
from .deepcluster_sampler import DeepClusterSampler

__all__ = ['DeepClusterSampler']
