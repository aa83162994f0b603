# Copyright (C) 2025, Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause

# Prevent circular import: https://github.com/Xilinx/brevitas/pull/1410
from .scaling import SCALING_STATS_REDUCE_DIM as _SCALING_STATS_REDUCE_DIM
