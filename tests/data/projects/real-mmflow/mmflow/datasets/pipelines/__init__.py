# Copyright (c) OpenMMLab. All rights reserved.
from .advanced_transform import RandomAffine
from .compose import Compose
from .formatting import (Collect, DefaultFormatBundle, ImageToTensor,
                         TestFormatBundle, ToDataContainer, ToTensor,
                         Transpose)
from .loading import LoadAnnotations, LoadImageFromFile
from .transforms import (ColorJitter, Erase, GaussianNoise, InputPad,
                         InputResize, Normalize, PhotoMetricDistortion,
                         RandomCrop, RandomFlip, RandomRotation,
                         RandomTranslate, Rerange, SpacialTransform,
                         Validation)

__all__ = [
    'Compose', 'LoadImageFromFile', 'LoadAnnotations', 'ToTensor',
    'ImageToTensor', 'Transpose', 'ToDataContainer', 'DefaultFormatBundle',
    'Collect', 'SpacialTransform', 'Validation', 'Erase', 'InputResize',
    'InputPad', 'RandomFlip', 'Normalize', 'Rerange', 'RandomCrop',
    'AdjustGamma', 'ColorJitter', 'PhotoMetricDistortion', 'RandomRotation',
    'RandomTranslate', 'GaussianNoise', 'RandomAffine', 'TestFormatBundle'
]
