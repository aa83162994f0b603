# Copyright (c) OpenMMLab. All rights reserved.
from .sot_lr_updater import SiameseRPNLrUpdaterHook
from .sot_optimizer_hook import (SiameseRPNFp16OptimizerHook,
                                 SiameseRPNOptimizerHook)

__all__ = [
    'SiameseRPNOptimizerHook', 'SiameseRPNLrUpdaterHook',
    'SiameseRPNFp16OptimizerHook'
]
