# Copyright (c) OpenMMLab. All rights reserved.
from .lars import LARS
from .layer_decay_optim_wrapper_constructor import \
    LearningRateDecayOptimWrapperConstructor

__all__ = ['LARS', 'LearningRateDecayOptimWrapperConstructor']
