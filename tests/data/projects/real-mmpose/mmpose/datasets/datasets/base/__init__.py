# Copyright (c) OpenMMLab. All rights reserved.
from .base_coco_style_dataset import BaseCocoStyleDataset
from .base_mocap_dataset import BaseMocapDataset

__all__ = ['BaseCocoStyleDataset', 'BaseMocapDataset']
