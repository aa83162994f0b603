# Copyright (c) OpenMMLab. All rights reserved.
from ._utils import (get_coco_sample, get_config_file, get_packed_inputs,
                     get_pose_estimator_cfg, get_repo_dir)

__all__ = [
    'get_packed_inputs', 'get_coco_sample', 'get_config_file',
    'get_pose_estimator_cfg', 'get_repo_dir'
]
