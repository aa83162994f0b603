# Copyright (c) OpenMMLab. All rights reserved.
from .deepcluster_hook import DeepClusterHook
from .densecl_hook import DenseCLHook
from .odc_hook import ODCHook
from .simsiam_hook import SimSiamHook
from .swav_hook import SwAVHook

__all__ = [
    'DeepClusterHook', 'DenseCLHook', 'ODCHook', 'SimSiamHook', 'SwAVHook'
]
