# Copyright (c) OpenMMLab. All rights reserved.
from .formatting import PackSelfSupInputs
from .processing import (BEiTMaskGenerator, ColorJitter, RandomCrop,
                         RandomGaussianBlur, RandomPatchWithLabels,
                         RandomResizedCrop,
                         RandomResizedCropAndInterpolationWithTwoPic,
                         RandomRotation, RandomSolarize, RotationWithLabels,
                         SimMIMMaskGenerator)
from .pytorch_transform import MAERandomResizedCrop
from .wrappers import MultiView

__all__ = [
    'PackSelfSupInputs', 'RandomGaussianBlur', 'RandomSolarize',
    'SimMIMMaskGenerator', 'BEiTMaskGenerator', 'ColorJitter',
    'RandomResizedCropAndInterpolationWithTwoPic', 'PackSelfSupInputs',
    'MultiView', 'RotationWithLabels', 'RandomPatchWithLabels',
    'RandomRotation', 'RandomResizedCrop', 'RandomCrop', 'MAERandomResizedCrop'
]
