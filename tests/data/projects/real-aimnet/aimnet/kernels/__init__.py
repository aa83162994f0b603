# SPDX-FileCopyrightText: Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: MIT
#
# Permission is hereby granted, free of charge, to any person obtaining a
# copy of this software and associated documentation files (the "Software"),
# to deal in the Software without restriction, including without limitation
# the rights to use, copy, modify, merge, publish, distribute, sublicense,
# and/or sell copies of the Software, and to permit persons to whom the
# Software is furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in
# all copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
# THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
# FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
# DEALINGS IN THE SOFTWARE.
"""AIMNet Kernels Package - GPU-accelerated custom operations."""

import torch
import warp as wp

from .conv_sv_2d_sp_wp import conv_sv_2d_sp, conv_sv_2d_sp_transpose  # type: ignore[attr-defined]

# Computed once after wp.init(); conda-forge can legally solve a CUDA pytorch
# together with a CPU-only warp-lang build, so torch.cuda alone is not proof
# that the Warp kernels can execute.
WARP_CUDA_AVAILABLE: bool = wp.get_cuda_device_count() > 0


def load_ops():
    """
    Load and register all custom ops.

    This function ensures that all custom operations are properly
    registered with PyTorch's operator registry.

    Should be called before using any of the custom kernels to ensure
    proper registration with the PyTorch dispatcher.

    Returns:
        list: Available ops that were registered.
    """
    available_ops = []

    # Import warp kernels to trigger registration.
    from . import conv_sv_2d_sp_wp  # noqa: F401

    # Verify ops are available
    if hasattr(torch.ops, "aimnet"):
        for name in (
            "conv_sv_2d_sp_fwd",
            "conv_sv_2d_sp_bwd",
            "conv_sv_2d_sp_bwd_bwd",
            "conv_sv_2d_sp_det_fwd",
            "conv_sv_2d_sp_det_bwd",
            "conv_sv_2d_sp_det_bwd_bwd",
        ):
            if hasattr(torch.ops.aimnet, name):
                available_ops.append(f"aimnet::{name}")

    return available_ops


__all__ = [
    "WARP_CUDA_AVAILABLE",
    "conv_sv_2d_sp",
    "conv_sv_2d_sp_transpose",
    "load_ops",
]
