# Copyright (c) OpenMMLab. All rights reserved.
from .transformer_layers import TFDecoderLayer, TFEncoderLayer

__all__ = ['TFEncoderLayer', 'TFDecoderLayer']
