# Copyright (c) OpenMMLab. All rights reserved.
from .algorithms import *  # noqa: F401,F403
from .backbones import *  # noqa: F401,F403
from .builder import (ALGORITHMS, BACKBONES, HEADS, LOSSES, MEMORIES, NECKS,
                      build_algorithm, build_backbone, build_head, build_loss,
                      build_memory, build_neck)
from .heads import *  # noqa: F401,F403
from .losses import *  # noqa: F401,F403
from .memories import *  # noqa: F401,F403
from .necks import *  # noqa: F401,F403
from .target_generators import *  # noqa: F401,F403
from .utils import *  # noqa: F401,F403

__all__ = [
    'ALGORITHMS', 'BACKBONES', 'NECKS', 'HEADS', 'MEMORIES', 'LOSSES',
    'build_algorithm', 'build_backbone', 'build_neck', 'build_head',
    'build_memory', 'build_loss'
]
