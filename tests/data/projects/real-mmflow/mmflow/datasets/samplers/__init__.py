# Copyright (c) OpenMMLab. All rights reserved.
from .distributed_sampler import (DistributedSampler,
                                  MixedBatchDistributedSampler)

__all__ = ['DistributedSampler', 'MixedBatchDistributedSampler']
