# Copyright (c) OpenMMLab. All rights reserved.
from .force_default_constructor import ForceDefaultOptimWrapperConstructor
from .layer_decay_optimizer_constructor import (
    LayerDecayOptimizerConstructor, LearningRateDecayOptimizerConstructor)

__all__ = [
    'LearningRateDecayOptimizerConstructor', 'LayerDecayOptimizerConstructor',
    'ForceDefaultOptimWrapperConstructor'
]
