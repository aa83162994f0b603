# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# pyre-strict

from .data_prefetcher import CudaDataPrefetcher
from .iterators import (
    AllDatasetBatchesIterator,
    DataIterationStrategy,
    DataIterationStrategyRegistry,
    InOrderIterator,
    MultiIterator,
    RandomizedBatchSamplerIterator,
    RoundRobinIterator,
)
from .multi_dataloader import MultiDataLoader
from .profile_dataloader import profile_dataloader
from .synthetic_data import AbstractRandomDataset

__all__ = [
    "AbstractRandomDataset",
    "AllDatasetBatchesIterator",
    "CudaDataPrefetcher",
    "DataIterationStrategy",
    "DataIterationStrategyRegistry",
    "InOrderIterator",
    "MultiDataLoader",
    "MultiIterator",
    "RandomizedBatchSamplerIterator",
    "RoundRobinIterator",
    "profile_dataloader",
]
