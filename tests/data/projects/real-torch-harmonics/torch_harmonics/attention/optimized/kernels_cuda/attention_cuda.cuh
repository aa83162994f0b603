// coding=utf-8
//
// SPDX-FileCopyrightText: Copyright (c) 2025 The torch-harmonics Authors. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// Redistribution and use in source and binary forms, with or without
// modification, are permitted provided that the following conditions are met:
//
// 1. Redistributions of source code must retain the above copyright notice, this
// list of conditions and the following disclaimer.
//
// 2. Redistributions in binary form must reproduce the above copyright notice,
// this list of conditions and the following disclaimer in the documentation
// and/or other materials provided with the distribution.
//
// 3. Neither the name of the copyright holder nor the names of its
// contributors may be used to endorse or promote products derived from
// this software without specific prior written permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
// AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
// IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
// DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
// FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
// DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
// SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
// CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
// OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
// OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.

#pragma once

#include <cmath>
#include <cstdint>
#include <torch/torch.h>

#define CHECK_CUDA_TENSOR(x) TORCH_INTERNAL_ASSERT(x.device().type() == torch::kCUDA)
#define CHECK_CONTIGUOUS_TENSOR(x) TORCH_INTERNAL_ASSERT(x.is_contiguous())
#define CHECK_CUDA_INPUT_TENSOR(x)                                                                                     \
    CHECK_CUDA_TENSOR(x);                                                                                              \
    CHECK_CONTIGUOUS_TENSOR(x)

namespace attention_kernels
{

    // NHWC ABI with heads packed along the channel dimension; see the definitions
    // in attention_cuda_fwd.cu / attention_cuda_bwd.cu.
    torch::Tensor s2_attention_fwd_cuda(at::Tensor kx, at::Tensor vx, at::Tensor qy, at::Tensor quad_weights,
                                        at::Tensor psi_col_idx, at::Tensor psi_row_off, at::Tensor psi_seg,
                                        at::Tensor psi_seg_off, int64_t num_heads, int64_t nlon_in, int64_t nlat_out,
                                        int64_t nlon_out);

    std::tuple<at::Tensor, at::Tensor, at::Tensor>
    s2_attention_bwd_dkvq_cuda(at::Tensor kx, at::Tensor vx, at::Tensor qy, at::Tensor dy, at::Tensor quad_weights,
                               at::Tensor psi_col_idx, at::Tensor psi_row_off, at::Tensor psi_seg, at::Tensor psi_seg_off,
                               int64_t num_heads, int64_t nlon_in, int64_t nlat_out, int64_t nlon_out);

    void s2_attention_fwd_ring_step_cuda(at::Tensor kx, at::Tensor vx, at::Tensor qy, at::Tensor y_acc,
                                         at::Tensor alpha_sum_buf, at::Tensor qdotk_max_buf, at::Tensor quad_weights,
                                         at::Tensor psi_col_idx, at::Tensor psi_row_off, at::Tensor psi_row_idx,
                                         int64_t nlon_in, int64_t pscale, int64_t lon_lo_kx, int64_t lat_halo_start,
                                         int64_t nlat_out, int64_t nlon_out, int64_t n_long_rows, int64_t max_row_len,
                                         int64_t mid_row_len);

    void s2_attention_bwd_ring_step_pass1_cuda(at::Tensor kx, at::Tensor vx, at::Tensor qy, at::Tensor dy,
                                               at::Tensor alpha_sum_buf, at::Tensor qdotk_max_buf,
                                               at::Tensor integral_buf, at::Tensor alpha_k_buf, at::Tensor alpha_kvw_buf,
                                               at::Tensor quad_weights, at::Tensor psi_col_idx, at::Tensor psi_row_off,
                                               at::Tensor psi_row_idx, int64_t nlon_in, int64_t pscale, int64_t lon_lo_kx,
                                               int64_t lat_halo_start, int64_t nlat_out, int64_t nlon_out,
                                               int64_t n_long_rows, int64_t max_row_len, int64_t mid_row_len);

    void s2_attention_bwd_ring_step_pass2_cuda(at::Tensor kx, at::Tensor vx, at::Tensor qy, at::Tensor dy,
                                               at::Tensor alpha_sum_buf, at::Tensor qdotk_max_buf,
                                               at::Tensor integral_norm_buf, at::Tensor dkx, at::Tensor dvx,
                                               at::Tensor quad_weights, at::Tensor psi_col_idx, at::Tensor psi_row_off,
                                               at::Tensor psi_row_idx, int64_t nlon_in, int64_t pscale, int64_t lon_lo_kx,
                                               int64_t lat_halo_start, int64_t nlat_out, int64_t nlon_out,
                                               int64_t n_long_rows, int64_t max_row_len, int64_t mid_row_len);

    // ring-step variants for the upsample (input-keyed scatter) direction
    void s2_attention_fwd_ring_step_upsample_cuda(at::Tensor kx, at::Tensor vx, at::Tensor qy, at::Tensor y_acc,
                                                  at::Tensor alpha_sum_buf, at::Tensor qdotk_max_buf,
                                                  at::Tensor quad_weights, at::Tensor psi_col_idx,
                                                  at::Tensor psi_row_off, int64_t nlon_in, int64_t nlon_out_global,
                                                  int64_t pscale_out, int64_t lon_lo_kx, int64_t lat_halo_start,
                                                  int64_t nlat_out, int64_t nlon_out);

    void s2_attention_bwd_ring_step_upsample_pass1_cuda(at::Tensor kx, at::Tensor vx, at::Tensor qy, at::Tensor dy,
                                                        at::Tensor qdotk_max_buf, at::Tensor integral_buf,
                                                        at::Tensor alpha_k_buf, at::Tensor alpha_kvw_buf,
                                                        at::Tensor quad_weights, at::Tensor psi_col_idx,
                                                        at::Tensor psi_row_off, int64_t nlon_in,
                                                        int64_t nlon_out_global, int64_t pscale_out, int64_t lon_lo_kx,
                                                        int64_t lat_halo_start, int64_t nlat_out, int64_t nlon_out);

    void s2_attention_bwd_ring_step_upsample_pass2_cuda(at::Tensor kx, at::Tensor vx, at::Tensor qy, at::Tensor dy,
                                                        at::Tensor alpha_sum_buf, at::Tensor qdotk_max_buf,
                                                        at::Tensor integral_norm_buf, at::Tensor dkx, at::Tensor dvx,
                                                        at::Tensor quad_weights, at::Tensor psi_col_idx,
                                                        at::Tensor psi_row_off, int64_t nlon_in,
                                                        int64_t nlon_out_global, int64_t pscale_out, int64_t lon_lo_kx,
                                                        int64_t lat_halo_start, int64_t nlat_out, int64_t nlon_out);

} // namespace attention_kernels
