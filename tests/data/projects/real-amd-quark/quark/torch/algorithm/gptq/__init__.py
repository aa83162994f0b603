#
# Copyright (C) 2023 - 2025 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from .gptq import GptqProcessor

__all__ = ["GptqProcessor"]
