# Copyright (c) OpenMMLab. All rights reserved.
from .formatting import PackSegInputs
from .loading import (LoadAnnotations, LoadBiomedicalAnnotation,
                      LoadBiomedicalData, LoadBiomedicalImageFromFile,
                      LoadDepthAnnotation, LoadImageFromNDArray,
                      LoadMultipleRSImageFromFile, LoadSingleRSImageFromFile)
# yapf: disable
from .transforms import (CLAHE, AdjustGamma, Albu, BioMedical3DPad,
                         BioMedical3DRandomCrop, BioMedical3DRandomFlip,
                         BioMedicalGaussianBlur, BioMedicalGaussianNoise,
                         BioMedicalRandomGamma, ConcatCDInput, GenerateEdge,
                         PhotoMetricDistortion, RandomCrop, RandomCutOut,
                         RandomDepthMix, RandomFlip, RandomMosaic,
                         RandomRotate, RandomRotFlip, Rerange, Resize,
                         ResizeShortestEdge, ResizeToMultiple, RGB2Gray,
                         SegRescale)

# yapf: enable
__all__ = [
    'LoadAnnotations', 'RandomCrop', 'BioMedical3DRandomCrop', 'SegRescale',
    'PhotoMetricDistortion', 'RandomRotate', 'AdjustGamma', 'CLAHE', 'Rerange',
    'RGB2Gray', 'RandomCutOut', 'RandomMosaic', 'PackSegInputs',
    'ResizeToMultiple', 'LoadImageFromNDArray', 'LoadBiomedicalImageFromFile',
    'LoadBiomedicalAnnotation', 'LoadBiomedicalData', 'GenerateEdge',
    'ResizeShortestEdge', 'BioMedicalGaussianNoise', 'BioMedicalGaussianBlur',
    'BioMedical3DRandomFlip', 'BioMedicalRandomGamma', 'BioMedical3DPad',
    'RandomRotFlip', 'Albu', 'LoadSingleRSImageFromFile', 'ConcatCDInput',
    'LoadMultipleRSImageFromFile', 'LoadDepthAnnotation', 'RandomDepthMix',
    'RandomFlip', 'Resize'
]
