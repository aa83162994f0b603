# Copyright (c) OpenMMLab. All rights reserved.
from .builder import DATASETS, build_dataset
from .deepcluster_dataset import DeepClusterImageNet
from .image_list_dataset import ImageList
from .places205 import Places205
from .samplers import *  # noqa: F401,F403
from .transforms import *  # noqa: F401,F403

__all__ = [
    'DATASETS', 'build_dataset', 'Places205', 'DeepClusterImageNet',
    'ImageList'
]
