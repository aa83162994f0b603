# Copyright (c) OpenMMLab. All rights reserved.
from .bottomup_transforms import (BottomupGetHeatmapMask, BottomupRandomAffine,
                                  BottomupRandomChoiceResize,
                                  BottomupRandomCrop, BottomupResize)
from .common_transforms import (Albumentation, FilterAnnotations,
                                GenerateTarget, GetBBoxCenterScale,
                                PhotometricDistortion, RandomBBoxTransform,
                                RandomFlip, RandomHalfBody, YOLOXHSVRandomAug)
from .converting import KeypointConverter, SingleHandConverter
from .formatting import PackPoseInputs
from .hand_transforms import HandRandomFlip
from .loading import LoadImage
from .mix_img_transforms import Mosaic, YOLOXMixUp
from .pose3d_transforms import RandomFlipAroundRoot
from .topdown_transforms import TopdownAffine

__all__ = [
    'GetBBoxCenterScale', 'RandomBBoxTransform', 'RandomFlip',
    'RandomHalfBody', 'TopdownAffine', 'Albumentation',
    'PhotometricDistortion', 'PackPoseInputs', 'LoadImage',
    'BottomupGetHeatmapMask', 'BottomupRandomAffine', 'BottomupResize',
    'GenerateTarget', 'KeypointConverter', 'RandomFlipAroundRoot',
    'FilterAnnotations', 'YOLOXHSVRandomAug', 'YOLOXMixUp', 'Mosaic',
    'BottomupRandomCrop', 'BottomupRandomChoiceResize', 'HandRandomFlip',
    'SingleHandConverter'
]
