# Copyright (c) OpenMMLab. All rights reserved.
from .collect_env import collect_env
from .logger import get_root_logger
from .misc import find_latest_checkpoint
from .set_env import setup_multi_processes

__all__ = [
    'collect_env', 'get_root_logger', 'find_latest_checkpoint',
    'setup_multi_processes'
]
