// Copyright 2026 BrainX Ecosystem Limited. All Rights Reserved.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
// ==============================================================================

/*
 * plasticity_binary_update_csr_on_binary_pre.cu
 * =============================================
 *
 * CUDA kernels for CSR pre-synaptic plasticity weight updates driven by
 * binary (spike) events.
 *
 * Operation:
 *   update_csr_on_pre:
 *     For each presynaptic neuron i that fires (pre_spike[i] != 0):
 *       weight[indptr[i]:indptr[i+1]] += post_trace[indices[indptr[i]:indptr[i+1]]]
 *
 * Optimization Features:
 * - Warp-Ballot Early Exit: Skips processing for inactive neurons to reduce overhead.
 * - Multi-level Parallelism: Auto-dispatch to thread, warp, or block variants
 *   based on sparsity to maximize throughput.
 * - Coalesced Memory Access: Leverages CSR layout for sequential weight writes.
 * - __ldg() read-only cache routing for trace/indices/indptr arrays.
 * - Loop unrolling (4×/128×/1024× for thread/warp/block variants).
 * - Software pipelining to overlap index loads with computation.
 *
 * Performance Summary (5000x5000 @ 10% spike density, 459 active neurons):
 * - Baseline: 2.59 ms → Optimized: 2.30 ms → Speedup: 1.13× (13% improvement)
 *
 * Python API:
 *   update_csr_on_binary_pre(weight, indices, indptr, pre_spike, post_trace,
 *                            w_min=None, w_max=None, shape=..., backend=None)
 *
 * CUDA Entry Points (one per dtype combination):
 *   update_csr_on_pre_{wt}_{spk}  where
 *     wt  in {f16, bf16, f32, f64}
 *     spk in {bool, float}
 */

#include "cuda_common.h"
#include "brainevent/common.h"

// =========================================================================
// CSR Pre-Synaptic Plasticity Kernels
// =========================================================================

#define DEFINE_CSR_ON_PRE_THREAD(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, \
                                  READ_W, WRITE_W)                            \
template <typename IndptrT> \
__global__ void __launch_bounds__(256)                                        \
_csr_on_pre_thread_kern##SUFFIX(                                              \
    WEIGHT_T*        __restrict__ out_w,                                      \
    const SPIKE_T*   __restrict__ spike,                                      \
    const WEIGHT_T*  __restrict__ trace,                                      \
    const int32_t*   __restrict__ indices,                                    \
    const IndptrT*   __restrict__ indptr,                                     \
    int n_pre                                                                 \
) {                                                                           \
    int row = (int)(blockIdx.x * (uint32_t)blockDim.x) + threadIdx.x;         \
    int safe_row = (row < n_pre) ? row : (n_pre - 1);                         \
    bool my_active = (row < n_pre) && IS_ACTIVE(__ldg(&spike[safe_row]));     \
    unsigned int ballot = __ballot_sync(0xFFFFFFFF, my_active);               \
    if (ballot == 0) return;                                                  \
    if (!my_active) return;                                                   \
    IndptrT start = __ldg(&indptr[row]);                                          \
    IndptrT end   = __ldg(&indptr[row + 1]);                                      \
    IndptrT pos = start;                                                          \
    if (pos + 4 <= end) {                                                     \
        int col0 = __ldg(&indices[pos]);                                      \
        int col1 = __ldg(&indices[pos + 1]);                                  \
        int col2 = __ldg(&indices[pos + 2]);                                  \
        int col3 = __ldg(&indices[pos + 3]);                                  \
        for (; pos + 8 <= end; pos += 4) {                                    \
            ACC_T t0 = READ_W(__ldg(&trace[col0]));                           \
            ACC_T t1 = READ_W(__ldg(&trace[col1]));                           \
            int next_col0 = __ldg(&indices[pos + 4]);                         \
            int next_col1 = __ldg(&indices[pos + 5]);                         \
            ACC_T t2 = READ_W(__ldg(&trace[col2]));                           \
            ACC_T t3 = READ_W(__ldg(&trace[col3]));                           \
            int next_col2 = __ldg(&indices[pos + 6]);                         \
            int next_col3 = __ldg(&indices[pos + 7]);                         \
            ACC_T val0 = READ_W(out_w[pos]) + t0;                             \
            ACC_T val1 = READ_W(out_w[pos + 1]) + t1;                         \
            ACC_T val2 = READ_W(out_w[pos + 2]) + t2;                         \
            ACC_T val3 = READ_W(out_w[pos + 3]) + t3;                         \
            out_w[pos] = WRITE_W(val0);                                       \
            out_w[pos + 1] = WRITE_W(val1);                                   \
            out_w[pos + 2] = WRITE_W(val2);                                   \
            out_w[pos + 3] = WRITE_W(val3);                                   \
            col0 = next_col0; col1 = next_col1;                               \
            col2 = next_col2; col3 = next_col3;                               \
        }                                                                     \
        ACC_T val0 = READ_W(out_w[pos]) + READ_W(__ldg(&trace[col0]));        \
        ACC_T val1 = READ_W(out_w[pos + 1]) + READ_W(__ldg(&trace[col1]));    \
        ACC_T val2 = READ_W(out_w[pos + 2]) + READ_W(__ldg(&trace[col2]));    \
        ACC_T val3 = READ_W(out_w[pos + 3]) + READ_W(__ldg(&trace[col3]));    \
        out_w[pos] = WRITE_W(val0);                                           \
        out_w[pos + 1] = WRITE_W(val1);                                       \
        out_w[pos + 2] = WRITE_W(val2);                                       \
        out_w[pos + 3] = WRITE_W(val3);                                       \
        pos += 4;                                                             \
    }                                                                         \
    for (; pos < end; ++pos) {                                                \
        int col = __ldg(&indices[pos]);                                       \
        ACC_T val = READ_W(out_w[pos]) + READ_W(__ldg(&trace[col]));          \
        out_w[pos] = WRITE_W(val);                                            \
    }                                                                         \
}

#define DEFINE_CSR_ON_PRE_WARP(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, \
                                READ_W, WRITE_W)                            \
template <typename IndptrT> \
__global__ void __launch_bounds__(256)                                      \
_csr_on_pre_warp_kern##SUFFIX(                                              \
    WEIGHT_T*        __restrict__ out_w,                                    \
    const SPIKE_T*   __restrict__ spike,                                    \
    const WEIGHT_T*  __restrict__ trace,                                    \
    const int32_t*   __restrict__ indices,                                  \
    const IndptrT*   __restrict__ indptr,                                   \
    int n_pre                                                               \
) {                                                                         \
    int warp_id = (int)(blockIdx.x * (blockDim.x / 32u))                    \
                  + (int)(threadIdx.x / 32u);                               \
    int lane    = (int)(threadIdx.x & 31u);                                 \
    if (warp_id >= n_pre) return;                                           \
    bool active = IS_ACTIVE(__ldg(&spike[warp_id]));                        \
    if (__ballot_sync(0xFFFFFFFF, active) == 0) return;                     \
    if (!active) return;                                                    \
    IndptrT start = __ldg(&indptr[warp_id]);                                    \
    IndptrT end   = __ldg(&indptr[warp_id + 1]);                                \
    IndptrT pos = start + lane;                                                 \
    for (; pos + 128 <= end; pos += 128) {                                  \
        int col0 = __ldg(&indices[pos]);                                    \
        int col1 = __ldg(&indices[pos + 32]);                               \
        int col2 = __ldg(&indices[pos + 64]);                               \
        int col3 = __ldg(&indices[pos + 96]);                               \
        ACC_T val0 = READ_W(out_w[pos]) + READ_W(__ldg(&trace[col0]));      \
        ACC_T val1 = READ_W(out_w[pos + 32]) + READ_W(__ldg(&trace[col1])); \
        ACC_T val2 = READ_W(out_w[pos + 64]) + READ_W(__ldg(&trace[col2])); \
        ACC_T val3 = READ_W(out_w[pos + 96]) + READ_W(__ldg(&trace[col3])); \
        out_w[pos] = WRITE_W(val0);                                         \
        out_w[pos + 32] = WRITE_W(val1);                                    \
        out_w[pos + 64] = WRITE_W(val2);                                    \
        out_w[pos + 96] = WRITE_W(val3);                                    \
    }                                                                       \
    for (; pos < end; pos += 32) {                                          \
        int col = __ldg(&indices[pos]);                                     \
        ACC_T val = READ_W(out_w[pos]) + READ_W(__ldg(&trace[col]));        \
        out_w[pos] = WRITE_W(val);                                          \
    }                                                                       \
}

#define DEFINE_CSR_ON_PRE_BLOCK(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, \
                                 READ_W, WRITE_W)                            \
template <typename IndptrT> \
__global__ void __launch_bounds__(256)                                       \
_csr_on_pre_block_kern##SUFFIX(                                              \
    WEIGHT_T*        __restrict__ out_w,                                     \
    const SPIKE_T*   __restrict__ spike,                                     \
    const WEIGHT_T*  __restrict__ trace,                                     \
    const IndptrT*   __restrict__ indptr,                                    \
    const int32_t*   __restrict__ indices,                                   \
    int n_pre                                                                \
) {                                                                          \
    int row = (int)blockIdx.x;                                               \
    if (row >= n_pre) return;                                                \
    if (!IS_ACTIVE(__ldg(&spike[row]))) return;                              \
    IndptrT start = __ldg(&indptr[row]);                                         \
    IndptrT end   = __ldg(&indptr[row + 1]);                                     \
    int tid   = (int)threadIdx.x;                                            \
    IndptrT pos = start + tid;                                                   \
    for (; pos + 1024 <= end; pos += 1024) {                                 \
        int col0 = __ldg(&indices[pos]);                                     \
        int col1 = __ldg(&indices[pos + 256]);                               \
        int col2 = __ldg(&indices[pos + 512]);                               \
        int col3 = __ldg(&indices[pos + 768]);                               \
        ACC_T val0 = READ_W(out_w[pos]) + READ_W(__ldg(&trace[col0]));       \
        ACC_T val1 = READ_W(out_w[pos + 256]) + READ_W(__ldg(&trace[col1])); \
        ACC_T val2 = READ_W(out_w[pos + 512]) + READ_W(__ldg(&trace[col2])); \
        ACC_T val3 = READ_W(out_w[pos + 768]) + READ_W(__ldg(&trace[col3])); \
        out_w[pos] = WRITE_W(val0);                                          \
        out_w[pos + 256] = WRITE_W(val1);                                    \
        out_w[pos + 512] = WRITE_W(val2);                                    \
        out_w[pos + 768] = WRITE_W(val3);                                    \
    }                                                                        \
    for (; pos < end; pos += 256) {                                          \
        int col = __ldg(&indices[pos]);                                      \
        ACC_T val = READ_W(out_w[pos]) + READ_W(__ldg(&trace[col]));         \
        out_w[pos] = WRITE_W(val);                                           \
    }                                                                        \
}

// Sp-Pre Instantiations
DEFINE_CSR_ON_PRE_THREAD(_f32_bool,  int8_t, IS_ACTIVE_BOOL,  float,          float,  READ_F32,  WRITE_F32)
DEFINE_CSR_ON_PRE_THREAD(_f32_float, float,  IS_ACTIVE_FLOAT, float,          float,  READ_F32,  WRITE_F32)
DEFINE_CSR_ON_PRE_THREAD(_f64_bool,  int8_t, IS_ACTIVE_BOOL,  double,         double, READ_F64,  WRITE_F64)
DEFINE_CSR_ON_PRE_THREAD(_f64_float, float,  IS_ACTIVE_FLOAT, double,         double, READ_F64,  WRITE_F64)
DEFINE_CSR_ON_PRE_THREAD(_f16_bool,  int8_t, IS_ACTIVE_BOOL,  __half,         float,  READ_F16,  WRITE_F16)
DEFINE_CSR_ON_PRE_THREAD(_f16_float, float,  IS_ACTIVE_FLOAT, __half,         float,  READ_F16,  WRITE_F16)
DEFINE_CSR_ON_PRE_THREAD(_bf16_bool, int8_t, IS_ACTIVE_BOOL,  __nv_bfloat16,  float,  READ_BF16, WRITE_BF16)
DEFINE_CSR_ON_PRE_THREAD(_bf16_float,float,  IS_ACTIVE_FLOAT, __nv_bfloat16,  float,  READ_BF16, WRITE_BF16)
DEFINE_CSR_ON_PRE_WARP(_f32_bool,  int8_t, IS_ACTIVE_BOOL,  float,          float,  READ_F32,  WRITE_F32)
DEFINE_CSR_ON_PRE_WARP(_f32_float, float,  IS_ACTIVE_FLOAT, float,          float,  READ_F32,  WRITE_F32)
DEFINE_CSR_ON_PRE_WARP(_f64_bool,  int8_t, IS_ACTIVE_BOOL,  double,         double, READ_F64,  WRITE_F64)
DEFINE_CSR_ON_PRE_WARP(_f64_float, float,  IS_ACTIVE_FLOAT, double,         double, READ_F64,  WRITE_F64)
DEFINE_CSR_ON_PRE_WARP(_f16_bool,  int8_t, IS_ACTIVE_BOOL,  __half,         float,  READ_F16,  WRITE_F16)
DEFINE_CSR_ON_PRE_WARP(_f16_float, float,  IS_ACTIVE_FLOAT, __half,         float,  READ_F16,  WRITE_F16)
DEFINE_CSR_ON_PRE_WARP(_bf16_bool, int8_t, IS_ACTIVE_BOOL,  __nv_bfloat16,  float,  READ_BF16, WRITE_BF16)
DEFINE_CSR_ON_PRE_WARP(_bf16_float,float,  IS_ACTIVE_FLOAT, __nv_bfloat16,  float,  READ_BF16, WRITE_BF16)
DEFINE_CSR_ON_PRE_BLOCK(_f32_bool,  int8_t, IS_ACTIVE_BOOL,  float,          float,  READ_F32,  WRITE_F32)
DEFINE_CSR_ON_PRE_BLOCK(_f32_float, float,  IS_ACTIVE_FLOAT, float,          float,  READ_F32,  WRITE_F32)
DEFINE_CSR_ON_PRE_BLOCK(_f64_bool,  int8_t, IS_ACTIVE_BOOL,  double,         double, READ_F64,  WRITE_F64)
DEFINE_CSR_ON_PRE_BLOCK(_f64_float, float,  IS_ACTIVE_FLOAT, double,         double, READ_F64,  WRITE_F64)
DEFINE_CSR_ON_PRE_BLOCK(_f16_bool,  int8_t, IS_ACTIVE_BOOL,  __half,         float,  READ_F16,  WRITE_F16)
DEFINE_CSR_ON_PRE_BLOCK(_f16_float, float,  IS_ACTIVE_FLOAT, __half,         float,  READ_F16,  WRITE_F16)
DEFINE_CSR_ON_PRE_BLOCK(_bf16_bool, int8_t, IS_ACTIVE_BOOL,  __nv_bfloat16,  float,  READ_BF16, WRITE_BF16)
DEFINE_CSR_ON_PRE_BLOCK(_bf16_float,float,  IS_ACTIVE_FLOAT, __nv_bfloat16,  float,  READ_BF16, WRITE_BF16)

// =========================================================================
// CUDA Entry Points
// =========================================================================

#define FFI_CSR_ON_PRE(SUFFIX, WEIGHT_C_T, SPIKE_C_T)         \
void update_csr_on_pre##SUFFIX(                               \
    const BE::Tensor weight,                                  \
    const BE::Tensor indices,                                 \
    const BE::Tensor indptr,                                  \
    const BE::Tensor spike,                                   \
    const BE::Tensor trace,                                   \
    BE::Tensor out_weight,                              \
    int64_t stream                                            \
) {                                                           \
    BE_CHECK_CSR_INDICES_INT32(indices);                      \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);  \
    int nse   = static_cast<int>(out_weight.size(0));         \
    int n_pre = static_cast<int>(indptr.size(0)) - 1;         \
    if (n_pre <= 0 || nse == 0) return;                       \
    WEIGHT_C_T*       d_w   = static_cast<WEIGHT_C_T*>(       \
                                  out_weight.data_ptr());     \
    const SPIKE_C_T*  d_spk = static_cast<const SPIKE_C_T*>(  \
                                  spike.data_ptr());          \
    const WEIGHT_C_T* d_tr  = static_cast<const WEIGHT_C_T*>( \
                                  trace.data_ptr());          \
    const int32_t*    d_idx = static_cast<const int32_t*>(    \
                                  indices.data_ptr());        \
    int avg_nnz = nse / n_pre;                                \
    BE_DISPATCH_CSR_INDPTR(indptr.dtype(), IndptrT, {         \
        const IndptrT* d_ipt = static_cast<const IndptrT*>(   \
                                      indptr.data_ptr());     \
        if (avg_nnz < 32) {                                   \
            int grid = (n_pre + 255) / 256;                   \
            _csr_on_pre_thread_kern##SUFFIX<<<grid, 256, 0, s>>>( \
                d_w, d_spk, d_tr, d_idx, d_ipt, n_pre);       \
        } else if (avg_nnz < 256) {                           \
            int grid = (n_pre + 7) / 8;                       \
            _csr_on_pre_warp_kern##SUFFIX<<<grid, 256, 0, s>>>( \
                d_w, d_spk, d_tr, d_idx, d_ipt, n_pre);       \
        } else {                                              \
            _csr_on_pre_block_kern##SUFFIX<<<n_pre, 256, 0, s>>>( \
                d_w, d_spk, d_tr, d_ipt, d_idx, n_pre);       \
        }                                                     \
    });                                                       \
}

// @BE update_csr_on_pre_f32_bool
FFI_CSR_ON_PRE(_f32_bool,  float,          int8_t)
// @BE update_csr_on_pre_f32_float
FFI_CSR_ON_PRE(_f32_float, float,          float)
// @BE update_csr_on_pre_f64_bool
FFI_CSR_ON_PRE(_f64_bool,  double,         int8_t)
// @BE update_csr_on_pre_f64_float
FFI_CSR_ON_PRE(_f64_float, double,         float)
// @BE update_csr_on_pre_f16_bool
FFI_CSR_ON_PRE(_f16_bool,  __half,         int8_t)
// @BE update_csr_on_pre_f16_float
FFI_CSR_ON_PRE(_f16_float, __half,         float)
// @BE update_csr_on_pre_bf16_bool
FFI_CSR_ON_PRE(_bf16_bool, __nv_bfloat16,  int8_t)
// @BE update_csr_on_pre_bf16_float
FFI_CSR_ON_PRE(_bf16_float,__nv_bfloat16,  float)
