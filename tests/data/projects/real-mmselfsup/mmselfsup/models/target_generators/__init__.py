# Copyright (c) OpenMMLab. All rights reserved.
from .clip_generator import CLIPGenerator
from .dall_e import Encoder
from .hog_generator import HOGGenerator
from .low_freq_generator import LowFreqTargetGenerator
from .vqkd import VQKD

__all__ = [
    'HOGGenerator', 'VQKD', 'Encoder', 'CLIPGenerator',
    'LowFreqTargetGenerator'
]
