# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.
from __future__ import annotations

from .ase_datasets import AseDBDataset, AseReadDataset, AseReadMultiStructureDataset
from .base_dataset import create_dataset
from .collaters.simple_collater import (
    data_list_collater,
)

__all__ = [
    "AseDBDataset",
    "AseReadDataset",
    "AseReadMultiStructureDataset",
    "create_dataset",
    "data_list_collater",
]
