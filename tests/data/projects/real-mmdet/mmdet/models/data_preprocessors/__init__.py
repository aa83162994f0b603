# Copyright (c) OpenMMLab. All rights reserved.
from .data_preprocessor import (BatchFixedSizePad, BatchResize,
                                BatchSyncRandomResize, BoxInstDataPreprocessor,
                                DetDataPreprocessor,
                                MultiBranchDataPreprocessor)
from .reid_data_preprocessor import ReIDDataPreprocessor
from .track_data_preprocessor import TrackDataPreprocessor

__all__ = [
    'DetDataPreprocessor', 'BatchSyncRandomResize', 'BatchFixedSizePad',
    'MultiBranchDataPreprocessor', 'BatchResize', 'BoxInstDataPreprocessor',
    'TrackDataPreprocessor', 'ReIDDataPreprocessor'
]
