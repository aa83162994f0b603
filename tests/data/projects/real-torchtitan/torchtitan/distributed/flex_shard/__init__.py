# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Flexible storage-to-compute redistribution APIs."""

from .dist_muon import build_dist_muon
from .optimizer_reshard import BlockShard, BucketConfig, ComputeLayout, Owned

__all__ = [
    "build_dist_muon",
    "BlockShard",
    "BucketConfig",
    "ComputeLayout",
    "Owned",
]
