# Copyright (c) OpenMMLab. All rights reserved.
from .force_default_constructor import ForceDefaultOptimWrapperConstructor
from .layer_decay_optim_wrapper import LayerDecayOptimWrapperConstructor

__all__ = [
    'LayerDecayOptimWrapperConstructor', 'ForceDefaultOptimWrapperConstructor'
]
