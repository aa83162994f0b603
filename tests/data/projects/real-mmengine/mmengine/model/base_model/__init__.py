# Copyright (c) OpenMMLab. All rights reserved.
from .base_model import BaseModel
from .data_preprocessor import BaseDataPreprocessor, ImgDataPreprocessor

__all__ = ['BaseModel', 'ImgDataPreprocessor', 'BaseDataPreprocessor']
