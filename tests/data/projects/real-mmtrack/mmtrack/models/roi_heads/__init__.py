# Copyright (c) OpenMMLab. All rights reserved.
from .bbox_heads import SelsaBBoxHead
from .roi_extractors import SingleRoIExtractor, TemporalRoIAlign
from .selsa_roi_head import SelsaRoIHead

__all__ = [
    'SelsaRoIHead', 'SelsaBBoxHead', 'TemporalRoIAlign', 'SingleRoIExtractor'
]
