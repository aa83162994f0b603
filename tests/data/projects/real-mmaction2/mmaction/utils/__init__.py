# Copyright (c) OpenMMLab. All rights reserved.
from .collect_env import collect_env
from .gradcam_utils import GradCAM
from .misc import (VideoWriter, frame_extract, get_random_string, get_shm_dir,
                   get_str_type, get_thread_id)
from .progress import track, track_on_main_process
from .setup_env import register_all_modules
from .typing_utils import *  # noqa: F401,F403

__all__ = [
    'collect_env', 'get_random_string', 'get_thread_id', 'get_shm_dir',
    'frame_extract', 'GradCAM', 'register_all_modules', 'VideoWriter',
    'get_str_type', 'track', 'track_on_main_process'
]
