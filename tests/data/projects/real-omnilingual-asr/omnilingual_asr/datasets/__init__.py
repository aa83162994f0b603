# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from omnilingual_asr.datasets.impl.manifest_asr_dataset import (
    ManifestAsrDataset,
    ManifestAsrDatasetConfig,
)
from omnilingual_asr.datasets.impl.mixture_parquet_asr_dataset import (
    MixtureParquetAsrDataset,
    MixtureParquetAsrDatasetConfig,
)

__all__ = [
    "ManifestAsrDataset",
    "ManifestAsrDatasetConfig",
    "MixtureParquetAsrDataset",
    "MixtureParquetAsrDatasetConfig",
]
