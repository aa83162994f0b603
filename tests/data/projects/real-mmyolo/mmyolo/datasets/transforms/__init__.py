# Copyright (c) OpenMMLab. All rights reserved.
from .formatting import PackDetInputs
from .mix_img_transforms import Mosaic, Mosaic9, YOLOv5MixUp, YOLOXMixUp
from .transforms import (FilterAnnotations, LetterResize, LoadAnnotations,
                         Polygon2Mask, PPYOLOERandomCrop, PPYOLOERandomDistort,
                         RandomAffine, RandomFlip, RegularizeRotatedBox,
                         RemoveDataElement, Resize, YOLOv5CopyPaste,
                         YOLOv5HSVRandomAug, YOLOv5KeepRatioResize,
                         YOLOv5RandomAffine)

__all__ = [
    'YOLOv5KeepRatioResize', 'LetterResize', 'Mosaic', 'YOLOXMixUp',
    'YOLOv5MixUp', 'YOLOv5HSVRandomAug', 'LoadAnnotations',
    'YOLOv5RandomAffine', 'PPYOLOERandomDistort', 'PPYOLOERandomCrop',
    'Mosaic9', 'YOLOv5CopyPaste', 'RemoveDataElement', 'RegularizeRotatedBox',
    'Polygon2Mask', 'PackDetInputs', 'RandomAffine', 'RandomFlip', 'Resize',
    'FilterAnnotations'
]
