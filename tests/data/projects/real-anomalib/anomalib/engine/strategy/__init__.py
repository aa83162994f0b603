# Copyright (C) 2025 Intel Corporation
# SPDX-License-Identifier: Apache-2.0

"""Strategy for Lightning Trainer."""

from .xpu_single import SingleXPUStrategy

__all__ = ["SingleXPUStrategy"]
