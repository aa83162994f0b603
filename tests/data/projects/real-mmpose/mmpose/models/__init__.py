# Copyright (c) OpenMMLab. All rights reserved.
from .backbones import *  # noqa
from .builder import (BACKBONES, HEADS, LOSSES, NECKS, build_backbone,
                      build_head, build_loss, build_neck, build_pose_estimator,
                      build_posenet)
from .data_preprocessors import *  # noqa
from .distillers import *  # noqa
from .heads import *  # noqa
from .losses import *  # noqa
from .necks import *  # noqa
from .pose_estimators import *  # noqa

__all__ = [
    'BACKBONES',
    'HEADS',
    'NECKS',
    'LOSSES',
    'build_backbone',
    'build_head',
    'build_loss',
    'build_posenet',
    'build_neck',
    'build_pose_estimator',
]
