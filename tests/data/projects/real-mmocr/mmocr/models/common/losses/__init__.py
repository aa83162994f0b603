# Copyright (c) OpenMMLab. All rights reserved.
from .bce_loss import (MaskedBalancedBCELoss, MaskedBalancedBCEWithLogitsLoss,
                       MaskedBCELoss, MaskedBCEWithLogitsLoss)
from .ce_loss import CrossEntropyLoss
from .dice_loss import MaskedDiceLoss, MaskedSquareDiceLoss
from .l1_loss import MaskedSmoothL1Loss, SmoothL1Loss

__all__ = [
    'MaskedBalancedBCEWithLogitsLoss', 'MaskedDiceLoss', 'MaskedSmoothL1Loss',
    'MaskedSquareDiceLoss', 'MaskedBCEWithLogitsLoss', 'SmoothL1Loss',
    'CrossEntropyLoss', 'MaskedBalancedBCELoss', 'MaskedBCELoss'
]
