# Copyright (c) OpenMMLab. All rights reserved.
from .loading import LoadPatchFromImage
from .transforms import PolyRandomRotate, RMosaic, RRandomFlip, RResize

__all__ = [
    'LoadPatchFromImage', 'RResize', 'RRandomFlip', 'PolyRandomRotate',
    'RMosaic'
]
