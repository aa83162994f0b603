# Copyright (c) OpenMMLab. All rights reserved.
from .data_preprocessor import TextRecogDataPreprocessor

__all__ = ['TextRecogDataPreprocessor']
