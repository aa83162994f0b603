# Copyright (c) OpenMMLab. All rights reserved.
from .adan_t import Adan
from .lamb import Lamb
from .lars import LARS
from .layer_decay_optim_wrapper_constructor import \
    LearningRateDecayOptimWrapperConstructor

__all__ = ['Lamb', 'Adan', 'LARS', 'LearningRateDecayOptimWrapperConstructor']
