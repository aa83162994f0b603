# Copyright (c) OpenMMLab. All rights reserved.
from .analyze import load_json_log
from .collect_env import collect_env
from .dependency import require
from .misc import get_ori_model
from .progress import track, track_on_main_process
from .setup_env import register_all_modules

__all__ = [
    'collect_env', 'register_all_modules', 'track_on_main_process',
    'load_json_log', 'get_ori_model', 'track', 'require'
]
