# Copyright (c) OpenMMLab. All rights reserved.
from .batch_augmentation import BatchSyncRandomResize
from .data_preprocessor import PoseDataPreprocessor

__all__ = [
    'PoseDataPreprocessor',
    'BatchSyncRandomResize',
]
