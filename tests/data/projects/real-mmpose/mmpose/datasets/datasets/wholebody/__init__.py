# Copyright (c) OpenMMLab. All rights reserved.
from .coco_wholebody_dataset import CocoWholeBodyDataset
from .halpe_dataset import HalpeDataset
from .ubody2d_dataset import UBody2dDataset

__all__ = ['CocoWholeBodyDataset', 'HalpeDataset', 'UBody2dDataset']
