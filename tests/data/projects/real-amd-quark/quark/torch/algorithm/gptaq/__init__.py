#
# Copyright (C) 2025 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from .gptaq import GptaqProcessor

__all__ = ["GptaqProcessor"]
