# Copyright (c) OpenMMLab. All rights reserved.
from .constant_lr import ConstantLR
from .quadratic_warmup import (QuadraticWarmupLR, QuadraticWarmupMomentum,
                               QuadraticWarmupParamScheduler)

__all__ = [
    'QuadraticWarmupParamScheduler', 'QuadraticWarmupMomentum',
    'QuadraticWarmupLR', 'ConstantLR'
]
