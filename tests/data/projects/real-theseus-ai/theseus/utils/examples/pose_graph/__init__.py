# Copyright (c) Meta Platforms, Inc. and affiliates.
#
# This source code is licensed under the MIT license found in the
# LICENSE file in the root directory of this source tree.

from .dataset import (
    PoseGraphDataset,
    PoseGraphEdge,
    pg_histogram,
    read_2D_g2o_file,
    read_3D_g2o_file,
)
