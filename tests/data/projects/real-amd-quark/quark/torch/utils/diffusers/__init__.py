#
# Copyright (C) 2025 - 2026 Advanced Micro Devices, Inc. All rights reserved.
# SPDX-License-Identifier: MIT
#

from .calibration import get_calib_dataloader
from .integration import qconfig_needs_activation_calibration, quantize_diffusion_model_in_place

__all__ = [
    "get_calib_dataloader",
    "qconfig_needs_activation_calibration",
    "quantize_diffusion_model_in_place",
]
