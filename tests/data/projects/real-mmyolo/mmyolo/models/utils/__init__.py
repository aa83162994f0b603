# Copyright (c) OpenMMLab. All rights reserved.
from .misc import (OutputSaveFunctionWrapper, OutputSaveObjectWrapper,
                   gt_instances_preprocess, make_divisible, make_round)

__all__ = [
    'make_divisible', 'make_round', 'gt_instances_preprocess',
    'OutputSaveFunctionWrapper', 'OutputSaveObjectWrapper'
]
