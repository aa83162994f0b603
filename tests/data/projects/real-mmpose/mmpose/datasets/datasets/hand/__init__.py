# Copyright (c) OpenMMLab. All rights reserved.
from .coco_wholebody_hand_dataset import CocoWholeBodyHandDataset
from .freihand_dataset import FreiHandDataset
from .interhand2d_double_dataset import InterHand2DDoubleDataset
from .onehand10k_dataset import OneHand10KDataset
from .panoptic_hand2d_dataset import PanopticHand2DDataset
from .rhd2d_dataset import Rhd2DDataset

__all__ = [
    'OneHand10KDataset', 'FreiHandDataset', 'PanopticHand2DDataset',
    'Rhd2DDataset', 'CocoWholeBodyHandDataset', 'InterHand2DDoubleDataset'
]
