# Copyright (c) OpenMMLab. All rights reserved.
from .base import BaseMultiObjectTracker
from .byte_track import ByteTrack
from .deep_sort import DeepSORT
from .ocsort import OCSORT
from .qdtrack import QDTrack
from .tracktor import Tracktor

__all__ = [
    'BaseMultiObjectTracker', 'Tracktor', 'DeepSORT', 'ByteTrack', 'QDTrack',
    'OCSORT'
]
