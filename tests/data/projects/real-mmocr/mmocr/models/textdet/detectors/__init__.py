# Copyright (c) OpenMMLab. All rights reserved.
from .dbnet import DBNet
from .drrg import DRRG
from .fcenet import FCENet
from .mmdet_wrapper import MMDetWrapper
from .panet import PANet
from .psenet import PSENet
from .single_stage_text_detector import SingleStageTextDetector
from .textsnake import TextSnake

__all__ = [
    'SingleStageTextDetector', 'DBNet', 'PANet', 'PSENet', 'TextSnake',
    'FCENet', 'DRRG', 'MMDetWrapper'
]
