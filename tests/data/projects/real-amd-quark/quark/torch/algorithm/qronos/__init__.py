#
# Copyright (C) 2025 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from .qronos import QronosProcessor

__all__ = ["QronosProcessor"]
