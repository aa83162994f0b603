# Copyright (c) OpenMMLab. All rights reserved.
from .camera import SimpleCamera, SimpleCameraTorch
from .collect_env import collect_env
from .config_utils import adapt_mmdet_pipeline
from .dist_utils import reduce_mean
from .logger import get_root_logger
from .setup_env import register_all_modules, setup_multi_processes
from .timer import StopWatch

__all__ = [
    'get_root_logger', 'collect_env', 'StopWatch', 'setup_multi_processes',
    'register_all_modules', 'SimpleCamera', 'SimpleCameraTorch',
    'adapt_mmdet_pipeline', 'reduce_mean'
]
