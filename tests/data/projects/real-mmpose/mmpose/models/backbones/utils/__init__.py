# Copyright (c) OpenMMLab. All rights reserved.
from .channel_shuffle import channel_shuffle
from .inverted_residual import InvertedResidual
from .make_divisible import make_divisible
from .se_layer import SELayer
from .utils import get_state_dict, load_checkpoint

__all__ = [
    'channel_shuffle', 'make_divisible', 'InvertedResidual', 'SELayer',
    'load_checkpoint', 'get_state_dict'
]
