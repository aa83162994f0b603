# Copyright (c) OpenMMLab. All rights reserved.
from .quota_sampler import DistributedQuotaSampler
from .video_sampler import DistributedVideoSampler, SOTVideoSampler

__all__ = [
    'DistributedVideoSampler', 'SOTVideoSampler', 'DistributedQuotaSampler'
]
