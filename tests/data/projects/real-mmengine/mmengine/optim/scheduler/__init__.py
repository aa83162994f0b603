# Copyright (c) OpenMMLab. All rights reserved.
# yapf: disable
from .lr_scheduler import (ConstantLR, CosineAnnealingLR, CosineRestartLR,
                           ExponentialLR, LinearLR, MultiStepLR, OneCycleLR,
                           PolyLR, ReduceOnPlateauLR, StepLR)
from .momentum_scheduler import (ConstantMomentum, CosineAnnealingMomentum,
                                 CosineRestartMomentum, ExponentialMomentum,
                                 LinearMomentum, MultiStepMomentum,
                                 PolyMomentum, ReduceOnPlateauMomentum,
                                 StepMomentum)
from .param_scheduler import (ConstantParamScheduler,
                              CosineAnnealingParamScheduler,
                              CosineRestartParamScheduler,
                              ExponentialParamScheduler, LinearParamScheduler,
                              MultiStepParamScheduler, OneCycleParamScheduler,
                              PolyParamScheduler,
                              ReduceOnPlateauParamScheduler,
                              StepParamScheduler, _ParamScheduler)

# yapf: enable
__all__ = [
    'ConstantLR', 'CosineAnnealingLR', 'ExponentialLR', 'LinearLR',
    'MultiStepLR', 'StepLR', 'ConstantMomentum', 'CosineAnnealingMomentum',
    'ExponentialMomentum', 'LinearMomentum', 'MultiStepMomentum',
    'StepMomentum', 'ConstantParamScheduler', 'CosineAnnealingParamScheduler',
    'ExponentialParamScheduler', 'LinearParamScheduler',
    'MultiStepParamScheduler', 'StepParamScheduler', '_ParamScheduler',
    'PolyParamScheduler', 'PolyLR', 'PolyMomentum', 'OneCycleParamScheduler',
    'OneCycleLR', 'CosineRestartParamScheduler', 'CosineRestartLR',
    'CosineRestartMomentum', 'ReduceOnPlateauParamScheduler',
    'ReduceOnPlateauLR', 'ReduceOnPlateauMomentum'
]
