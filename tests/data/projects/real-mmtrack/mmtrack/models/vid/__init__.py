# Copyright (c) OpenMMLab. All rights reserved.
from .base import BaseVideoDetector
from .dff import DFF
from .fgfa import FGFA
from .selsa import SELSA

__all__ = ['BaseVideoDetector', 'DFF', 'FGFA', 'SELSA']
