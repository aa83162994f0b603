# Copyright (c) OpenMMLab. All rights reserved.
from .census_loss import census_loss
from .multilevel_bce import (MultiLevelBCE, binary_cross_entropy,
                             multi_levels_binary_cross_entropy)
from .multilevel_charbonnier_loss import (MultiLevelCharbonnierLoss,
                                          charbonnier_loss)
from .multilevel_epe import MultiLevelEPE, endpoint_error
from .sequence_loss import SequenceLoss, sequence_loss
from .smooth_loss import smooth_1st_loss, smooth_2nd_loss
from .ssim import weighted_ssim

__all__ = [
    'endpoint_error', 'sequence_loss', 'binary_cross_entropy', 'SequenceLoss',
    'MultiLevelBCE', 'MultiLevelEPE', 'MultiLevelCharbonnierLoss',
    'multi_levels_binary_cross_entropy', 'charbonnier_loss', 'weighted_ssim',
    'smooth_1st_loss', 'smooth_2nd_loss', 'census_loss'
]
