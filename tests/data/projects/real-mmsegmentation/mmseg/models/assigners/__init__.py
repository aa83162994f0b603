# Copyright (c) OpenMMLab. All rights reserved.
from .base_assigner import BaseAssigner
from .hungarian_assigner import HungarianAssigner
from .match_cost import ClassificationCost, CrossEntropyLossCost, DiceCost

__all__ = [
    'BaseAssigner',
    'HungarianAssigner',
    'ClassificationCost',
    'CrossEntropyLossCost',
    'DiceCost',
]
