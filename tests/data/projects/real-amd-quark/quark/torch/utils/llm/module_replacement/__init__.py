#
# Copyright (C) 2023 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from .preprocess_registry import PREPROCESS_REGISTRY
from .quark_experts import *  # noqa: F403

__all__ = ["PREPROCESS_REGISTRY"]
