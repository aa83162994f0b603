#
# Copyright (C) 2023 - 2025 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from .blockwise_tuning import BlockwiseTuningProcessor

__all__ = ["BlockwiseTuningProcessor"]
