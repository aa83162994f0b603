# Copyright (c) OpenMMLab. All rights reserved.
from .hooks import SegVisualizationHook
from .optimizers import (ForceDefaultOptimWrapperConstructor,
                         LayerDecayOptimizerConstructor,
                         LearningRateDecayOptimizerConstructor)
from .schedulers import PolyLRRatio

__all__ = [
    'LearningRateDecayOptimizerConstructor', 'LayerDecayOptimizerConstructor',
    'SegVisualizationHook', 'PolyLRRatio',
    'ForceDefaultOptimWrapperConstructor'
]
