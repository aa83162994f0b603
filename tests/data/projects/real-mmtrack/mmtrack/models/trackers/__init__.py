# Copyright (c) OpenMMLab. All rights reserved.
from .base_tracker import BaseTracker
from .byte_tracker import ByteTracker
from .masktrack_rcnn_tracker import MaskTrackRCNNTracker
from .ocsort_tracker import OCSORTTracker
from .quasi_dense_tao_tracker import QuasiDenseTAOTracker
from .quasi_dense_tracker import QuasiDenseTracker
from .sort_tracker import SortTracker
from .tracktor_tracker import TracktorTracker

__all__ = [
    'BaseTracker', 'TracktorTracker', 'SortTracker', 'MaskTrackRCNNTracker',
    'ByteTracker', 'QuasiDenseTracker', 'QuasiDenseTAOTracker', 'OCSORTTracker'
]
