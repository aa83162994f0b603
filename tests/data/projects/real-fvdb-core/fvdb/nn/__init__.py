# Copyright Contributors to the OpenVDB Project
# SPDX-License-Identifier: Apache-2.0
#
"""Neural-network layers and U-Net blocks for sparse voxel features."""

from .modules import (
    AvgPool,
    BatchNorm,
    GroupNorm,
    MaxPool,
    Prune,
    SparseConv3d,
    SparseConvTranspose3d,
    SyncBatchNorm,
    UpsamplingNearest,
)
from .simple_unet import (
    SimpleUNet,
    SimpleUNetBasicBlock,
    SimpleUNetBottleneck,
    SimpleUNetConvBlock,
    SimpleUNetDown,
    SimpleUNetDownUp,
    SimpleUNetPad,
    SimpleUNetUnpad,
    SimpleUNetUp,
)

__all__ = [
    "AvgPool",
    "BatchNorm",
    "GroupNorm",
    "MaxPool",
    "Prune",
    "SimpleUNet",
    "SimpleUNetBasicBlock",
    "SimpleUNetBottleneck",
    "SimpleUNetConvBlock",
    "SimpleUNetDown",
    "SimpleUNetDownUp",
    "SimpleUNetPad",
    "SimpleUNetUnpad",
    "SimpleUNetUp",
    "SparseConv3d",
    "SparseConvTranspose3d",
    "SyncBatchNorm",
    "UpsamplingNearest",
]
