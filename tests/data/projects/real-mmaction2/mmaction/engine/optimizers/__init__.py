# Copyright (c) OpenMMLab. All rights reserved.
from .layer_decay_optim_wrapper_constructor import \
    LearningRateDecayOptimizerConstructor
from .swin_optim_wrapper_constructor import SwinOptimWrapperConstructor
from .tsm_optim_wrapper_constructor import TSMOptimWrapperConstructor

__all__ = [
    'TSMOptimWrapperConstructor', 'SwinOptimWrapperConstructor',
    'LearningRateDecayOptimizerConstructor'
]
