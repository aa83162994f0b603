# --------------------------------------------------------
# Octree-based Sparse Convolutional Neural Networks
# Copyright (c) 2022 Peng-Shuai Wang <wangps@hotmail.com>
# Licensed under The MIT License [see LICENSE for details]
# Written by Peng-Shuai Wang
# --------------------------------------------------------

from . import config
from .config import get_config, parse_args

from . import solver
from .solver import Solver

from . import dataset
from .dataset import Dataset

from . import registry
from .registry import (build_model, register_model,
                       build_dataset, register_dataset)

__all__ = [
    'config', 'get_config', 'parse_args',
    'solver', 'Solver',
    'dataset', 'Dataset',
    'registry', 'build_model', 'register_model',
    'build_dataset', 'register_dataset',
]
