# Copyright (c) OpenMMLab. All rights reserved.
from .builder import build_dataset
from .dataset_wrappers import CombinedDataset
from .datasets import *  # noqa
from .samplers import MultiSourceSampler
from .transforms import *  # noqa

__all__ = ['build_dataset', 'CombinedDataset', 'MultiSourceSampler']
