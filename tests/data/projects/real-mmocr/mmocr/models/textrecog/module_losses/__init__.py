# Copyright (c) OpenMMLab. All rights reserved.
from .abi_module_loss import ABIModuleLoss
from .base import BaseTextRecogModuleLoss
from .ce_module_loss import CEModuleLoss
from .ctc_module_loss import CTCModuleLoss

__all__ = [
    'BaseTextRecogModuleLoss', 'CEModuleLoss', 'CTCModuleLoss', 'ABIModuleLoss'
]
