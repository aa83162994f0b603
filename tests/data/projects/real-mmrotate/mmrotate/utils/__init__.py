# Copyright (c) OpenMMLab. All rights reserved.
from .collect_env import collect_env
from .compat_config import compat_cfg
from .logger import get_root_logger
from .misc import find_latest_checkpoint
from .setup_env import setup_multi_processes

__all__ = [
    'get_root_logger', 'collect_env', 'find_latest_checkpoint', 'compat_cfg',
    'setup_multi_processes'
]
