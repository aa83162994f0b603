# Copyright (c) OpenMMLab. All rights reserved.
from .data_preprocessor import ActionDataPreprocessor
from .multimodal_data_preprocessor import MultiModalDataPreprocessor

__all__ = ['ActionDataPreprocessor', 'MultiModalDataPreprocessor']
