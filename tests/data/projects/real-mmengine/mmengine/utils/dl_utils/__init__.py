# Copyright (c) OpenMMLab. All rights reserved.

from .collect_env import collect_env
from .hub import load_url
from .misc import has_batch_norm, is_norm, mmcv_full_available, tensor2imgs
from .parrots_wrapper import TORCH_VERSION
from .setup_env import set_multi_processing
from .time_counter import TimeCounter
from .torch_ops import torch_meshgrid
from .trace import is_jit_tracing

__all__ = [
    'load_url', 'TORCH_VERSION', 'set_multi_processing', 'has_batch_norm',
    'is_norm', 'tensor2imgs', 'mmcv_full_available', 'collect_env',
    'torch_meshgrid', 'is_jit_tracing', 'TimeCounter'
]
