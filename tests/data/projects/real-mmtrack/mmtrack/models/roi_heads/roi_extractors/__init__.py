# Copyright (c) OpenMMLab. All rights reserved.
from .single_level_roi_extractor import SingleRoIExtractor
from .temporal_roi_align import TemporalRoIAlign

__all__ = ['SingleRoIExtractor', 'TemporalRoIAlign']
