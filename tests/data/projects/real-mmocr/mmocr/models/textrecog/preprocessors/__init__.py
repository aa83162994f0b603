# Copyright (c) OpenMMLab. All rights reserved.
from .tps_preprocessor import STN, TPStransform

__all__ = ['TPStransform', 'STN']
