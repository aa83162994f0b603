# Copyright (c) OpenMMLab. All rights reserved.
from .data_preprocessor import Det3DDataPreprocessor

__all__ = ['Det3DDataPreprocessor']
