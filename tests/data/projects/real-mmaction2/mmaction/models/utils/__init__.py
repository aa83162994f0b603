# Copyright (c) OpenMMLab. All rights reserved.
from .blending_utils import (BaseMiniBatchBlending, CutmixBlending,
                             MixupBlending, RandomBatchAugment)
from .gcn_utils import *  # noqa: F401,F403
from .graph import Graph

__all__ = [
    'BaseMiniBatchBlending', 'CutmixBlending', 'MixupBlending', 'Graph',
    'RandomBatchAugment'
]
