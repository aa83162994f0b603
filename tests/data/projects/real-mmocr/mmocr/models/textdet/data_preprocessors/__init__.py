# Copyright (c) OpenMMLab. All rights reserved.
from .data_preprocessor import TextDetDataPreprocessor

__all__ = ['TextDetDataPreprocessor']
