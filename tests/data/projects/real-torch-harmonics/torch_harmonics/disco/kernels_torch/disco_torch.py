# coding=utf-8

# SPDX-FileCopyrightText: Copyright (c) 2022 The torch-harmonics Authors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Redistribution and use in source and binary forms, with or without
# modification, are permitted provided that the following conditions are met:
#
# 1. Redistributions of source code must retain the above copyright notice, this
# list of conditions and the following disclaimer.
#
# 2. Redistributions in binary form must reproduce the above copyright notice,
# this list of conditions and the following disclaimer in the documentation
# and/or other materials provided with the distribution.
#
# 3. Neither the name of the copyright holder nor the names of its
# contributors may be used to endorse or promote products derived from
# this software without specific prior written permission.
#
# THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
# AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
# IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
# DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
# FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
# DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
# SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
# CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
# OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
# OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
#

"""
Pure-PyTorch reference implementations of the DISCO convolution kernels.

These mirror the C++/CUDA kernels in ``optimized/kernels_cpu`` and
``optimized/kernels_cuda`` but are written in plain PyTorch, making them easier to
read and useful as a correctness reference for the optimized paths. Performance
is intentionally not the focus here — the contraction is implemented as a
sequence of ``torch.bmm`` calls combined with ``torch.roll`` to realize the
shifted multiplication.
"""

import torch

from torch_harmonics.utils import check

from .._disco_utils import _compute_dtype


# convolution
def _disco_s2_contraction_torch(x: torch.Tensor, psi: torch.Tensor, nlon_out: int):
    """
    Reference implementation of the custom contraction as described in :cite:`Ocampo2023`. This requires repeated
    shifting of the input tensor, which can potentially be costly. For an efficient implementation
    on GPU, make sure to use the custom kernel written in CUDA.
    """

    check(psi.dim() == 3, lambda: f"Expected 3-dimensional psi tensor, got {psi.dim()} dimensions")
    check(x.dim() == 4, lambda: f"Expected 4-dimensional input tensor, got {x.dim()} dimensions")
    psi = psi.to(x.device)

    batch_size, n_chans, nlat_in, nlon_in = x.shape
    kernel_size, nlat_out, _ = psi.shape

    check(psi.shape[-1] == nlat_in * nlon_in, lambda: f"Expected psi.shape[-1]=={nlat_in * nlon_in}, got {psi.shape[-1]}")
    check(nlon_in % nlon_out == 0, lambda: f"nlon_in ({nlon_in}) must be an integer multiple of nlon_out ({nlon_out})")
    check(nlon_in >= nlat_out, lambda: f"Expected nlon_in ({nlon_in}) >= nlat_out ({nlat_out})")
    pscale = nlon_in // nlon_out

    # add a dummy dimension for nkernel and move the batch and channel dims to the end
    x = x.reshape(1, batch_size * n_chans, nlat_in, nlon_in).permute(0, 2, 3, 1)
    x = x.expand(kernel_size, -1, -1, -1)
    xtype = x.dtype
    cdtype = _compute_dtype(xtype)
    x = x.to(cdtype).contiguous()
    psi = psi.to(dtype=cdtype)

    y = torch.zeros(nlon_out, kernel_size, nlat_out, batch_size * n_chans, device=x.device, dtype=cdtype)

    with torch.amp.autocast(device_type=x.device.type, enabled=False):
        for pout in range(nlon_out):
            # sparse contraction with psi
            y[pout] = torch.bmm(psi, x.reshape(kernel_size, nlat_in * nlon_in, -1))
            # we need to repeatedly roll the input tensor to faciliate the shifted multiplication
            x = torch.roll(x, -pscale, dims=2)

    y = y.to(xtype)

    # reshape y back to expose the correct dimensions
    y = y.permute(3, 1, 2, 0).reshape(batch_size, n_chans, kernel_size, nlat_out, nlon_out).contiguous()

    return y


# transpose convolution
def _disco_s2_transpose_contraction_torch(x: torch.Tensor, psi: torch.Tensor, nlon_out: int):
    check(psi.dim() == 3, lambda: f"Expected 3-dimensional psi tensor, got {psi.dim()} dimensions")
    check(x.dim() == 5, lambda: f"Expected 5-dimensional input tensor, got {x.dim()} dimensions")
    psi = psi.to(x.device)

    batch_size, n_chans, kernel_size, nlat_in, nlon_in = x.shape
    kernel_size, nlat_out, n_out = psi.shape

    check(n_out % nlon_out == 0, lambda: f"Expected n_out ({n_out}) to be an integer multiple of nlon_out ({nlon_out})")
    check(nlon_out >= nlon_in, lambda: f"Expected nlon_out ({nlon_out}) >= nlon_in ({nlon_in})")
    pscale = nlon_out // nlon_in

    # interleave zeros along the longitude dimension to allow for fractional offsets to be considered
    x_ext = torch.zeros(kernel_size, nlat_in, nlon_out, batch_size * n_chans, device=x.device, dtype=x.dtype)
    x = x.reshape(batch_size * n_chans, kernel_size, nlat_in, nlon_in).permute(1, 2, 3, 0)

    # x has shape kernel_size x nlat_in x nlon_in x batch_size * n_chans
    # we only need to apoply the nlon stride here, since nlat stride is taken care of by the kernel
    x_ext[:, :, ::pscale, :] = x[...]

    xtype = x_ext.dtype
    cdtype = _compute_dtype(xtype)
    x_ext = x_ext.to(cdtype).contiguous()
    psi = psi.to(dtype=cdtype)

    # create output tensor
    y = torch.zeros(kernel_size, nlon_out, nlat_out, batch_size * n_chans, device=x.device, dtype=cdtype)

    with torch.amp.autocast(device_type=x.device.type, enabled=False):
        for pout in range(nlon_out):
            # we need to repeatedly roll the input tensor to faciliate the shifted multiplication
            # TODO: double-check why this has to happen first
            x_ext = torch.roll(x_ext, -1, dims=2)
            # sparse contraction with the modified psi
            y[:, pout, :, :] = torch.bmm(psi, x_ext.reshape(kernel_size, nlat_in * nlon_out, -1))

    # sum over the kernel dimension and reshape to the correct output size
    y = y.sum(dim=0)

    # convert datatype back to input type
    y = y.to(xtype)

    y = y.permute(2, 1, 0).reshape(batch_size, n_chans, nlat_out, nlon_out)

    # cast to contiguous
    y = y.contiguous()

    return y
