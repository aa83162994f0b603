# Copyright (c) OpenMMLab. All rights reserved.
from .cutmix import CutMix
from .mixup import Mixup
from .resizemix import ResizeMix
from .wrapper import RandomBatchAugment

__all__ = ('RandomBatchAugment', 'CutMix', 'Mixup', 'ResizeMix')
