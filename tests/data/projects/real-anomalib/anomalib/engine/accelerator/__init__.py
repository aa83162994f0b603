# Copyright (C) 2025 Intel Corporation
# SPDX-License-Identifier: Apache-2.0

"""Accelerator for Lightning Trainer."""

from .xpu import XPUAccelerator

__all__ = ["XPUAccelerator"]
