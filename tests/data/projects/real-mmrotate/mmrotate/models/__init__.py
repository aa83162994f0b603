# Copyright (c) OpenMMLab. All rights reserved.
from .backbones import *  # noqa: F401, F403
from .builder import (ROTATED_BACKBONES, ROTATED_DETECTORS, ROTATED_HEADS,
                      ROTATED_LOSSES, ROTATED_NECKS, ROTATED_ROI_EXTRACTORS,
                      ROTATED_SHARED_HEADS, build_backbone, build_detector,
                      build_head, build_loss, build_neck, build_roi_extractor,
                      build_shared_head)
from .dense_heads import *  # noqa: F401, F403
from .detectors import *  # noqa: F401, F403
from .losses import *  # noqa: F401, F403
from .necks import *  # noqa: F401, F403
from .roi_heads import *  # noqa: F401, F403
from .utils import *  # noqa: F401, F403

__all__ = [
    'ROTATED_BACKBONES', 'ROTATED_NECKS', 'ROTATED_ROI_EXTRACTORS',
    'ROTATED_SHARED_HEADS', 'ROTATED_HEADS', 'ROTATED_LOSSES',
    'ROTATED_DETECTORS', 'build_backbone', 'build_neck', 'build_roi_extractor',
    'build_shared_head', 'build_head', 'build_loss', 'build_detector'
]
