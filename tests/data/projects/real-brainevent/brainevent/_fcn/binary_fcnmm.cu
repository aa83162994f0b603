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
 * binary_fcnmm.cu -- Event-Driven Binary FCN Sparse Matrix-Matrix CUDA Kernels
 * ==============================================================================
 *
 * This module provides optimized CUDA kernels for event-driven sparse
 * matrix-matrix multiplication with fixed connection number (FCN).
 *
 * Operator: binary_fcnmm
 *   - Gather mode (transpose=False): output[i,j] = sum_k weights[i,k] * is_active(matrix[indices[i,k], j])
 *   - SRAW scatter mode (transpose=True): output[j, indices[i,k]] += weights[i,k] * is_active(matrix[i,j])
 *
 * Supports weight dtypes: float32, float64, float16, bfloat16
 * Supports spike dtypes:  bool (uint8), float32, float64, float16, bfloat16
 * Supports homo (scalar weight) and hetero (per-connection weight array) modes.
 *
 * Optimizations:
 *   - BGM_WARP: Grid-stride loop, multi-row per block (4 warps),
 *               shuffle-based index/weight loading, branchless accumulation
 *   - BGM_BASIC: Grid-stride loop, tree reduction, weight caching in
 *                shared memory (hetero), branchless accumulation
 *   - Spike bit-packing (gather): When the spike matrix exceeds L2 size,
 *     spikes are packed to 1-bit-per-element uint32 bitmasks, compressing
 *     the matrix by 32x (float32) so it fits in L2. Packed gather kernels
 *     (BGM_PACKED_*) read one uint32 per source row per warp — all threads
 *     broadcast the same L2 transaction, giving near-perfect L2 hit rates.
 *   - SRAW scatter-read / aggregate-write: writes physical CUDA output as
 *     [n_batch, target_rows]; Python transposes it for API compatibility.
 */

#include "cuda_common.h"
#include "brainevent/common.h"

// ============================================================================
// FCN Matrix-Matrix Multiplication (fcnmm) — Optimized CUDA Kernels
// ============================================================================

// Rows per block for warp kernels (multi-row for better occupancy)
#define WARP_ROWS_PER_BLOCK 4

// Maximum grid.x for gather kernels (grid-stride loop).
#define BGM_MAX_GRID_X 4096

#define SRAW_FCNMM_WARP_THREADS 32
#define SRAW_FCNMM_WARPS_PER_BLOCK 8
#define SRAW_FCNMM_BLOCK_THREADS (SRAW_FCNMM_WARPS_PER_BLOCK * SRAW_FCNMM_WARP_THREADS)

// -----------------------------------------------------------------------
// BGM_WARP: Gather warp/WPR kernel (temporarily supports any n_conn)
//   - Grid-stride loop: caps block count for reduced scheduling overhead
//   - In-kernel matrix tiling: processes source index ranges to fit L2
//   - Multi-row per block: 4 warps, each handling one row
//   - Shuffle-based index loading: indices read once into registers,
//     then broadcast via __shfl_sync (zero global memory in inner loop)
//   - Branchless accumulation: accum += (ACC_T)active
// -----------------------------------------------------------------------
#define DEFINE_BGM_WARP_HOMO(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, READ_W, WRITE_W)     \
__global__ void _bgm_warp_homo_kern##SUFFIX(                                                   \
    const int32_t* __restrict__ indices,                                                       \
    const SPIKE_T* __restrict__ matrix,                                                        \
    WEIGHT_T*      __restrict__ output,                                                        \
    const WEIGHT_T* __restrict__ weights,                                                      \
    int n_pre, int n_conn, int n_batch, int n_post, int tile_size                              \
) {                                                                                            \
    int warp_id = threadIdx.x >> 5;                                                            \
    int lane    = threadIdx.x & 31;                                                            \
    int rpb     = blockDim.x >> 5;                                                             \
    int j       = (int)blockIdx.y * 32 + lane;                                                 \
    bool col_valid = (j < n_batch);                                                            \
    int  safe_j    = col_valid ? j : 0;                                                        \
    ACC_T w0 = READ_W(__ldg(&weights[0]));                                                     \
    for (int base = blockIdx.x * rpb; base < n_pre; base += gridDim.x * rpb) {                 \
        int row = base + warp_id;                                                              \
        if (row >= n_pre) continue;                                                            \
        const int32_t* i_row = indices + (size_t)row * n_conn;                                 \
        ACC_T accum = (ACC_T)0;                                                                \
        for (int ts = 0; ts < n_post; ts += tile_size) {                                       \
            int tsz = ((ts + tile_size) < n_post) ? tile_size : (n_post - ts);                 \
            for (int k0 = 0; k0 < n_conn; k0 += 32) {                                          \
                int k_lane = k0 + lane;                                                        \
                int my_idx = (k_lane < n_conn) ? __ldg(&i_row[k_lane]) : 0;                    \
                for (int off = 0; off < 32 && k0 + off < n_conn; off++) {                      \
                    int src = __shfl_sync(0xffffffff, my_idx, off);                            \
                    if ((unsigned)(src - ts) < (unsigned)tsz) {                                \
                        bool active = col_valid &&                                             \
                            IS_ACTIVE(__ldg(&matrix[(size_t)src * n_batch + safe_j]));          \
                        accum += (ACC_T)active;                                                \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        if (col_valid)                                                                         \
            output[(size_t)row * n_batch + j] = WRITE_W(w0 * accum);                           \
    }                                                                                          \
}

#define DEFINE_BGM_WARP_HETERO(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, READ_W, WRITE_W)   \
__global__ void _bgm_warp_hetero_kern##SUFFIX(                                                 \
    const int32_t* __restrict__ indices,                                                       \
    const SPIKE_T* __restrict__ matrix,                                                        \
    WEIGHT_T*      __restrict__ output,                                                        \
    const WEIGHT_T* __restrict__ weights,                                                      \
    int n_pre, int n_conn, int n_batch, int n_post, int tile_size                              \
) {                                                                                            \
    int warp_id = threadIdx.x >> 5;                                                            \
    int lane    = threadIdx.x & 31;                                                            \
    int rpb     = blockDim.x >> 5;                                                             \
    int j       = (int)blockIdx.y * 32 + lane;                                                 \
    bool col_valid = (j < n_batch);                                                            \
    int  safe_j    = col_valid ? j : 0;                                                        \
    for (int base = blockIdx.x * rpb; base < n_pre; base += gridDim.x * rpb) {                 \
        int row = base + warp_id;                                                              \
        if (row >= n_pre) continue;                                                            \
        const int32_t*  i_row = indices + (size_t)row * n_conn;                                \
        const WEIGHT_T* w_row = weights + (size_t)row * n_conn;                                \
        ACC_T accum  = (ACC_T)0;                                                               \
        for (int ts = 0; ts < n_post; ts += tile_size) {                                       \
            int tsz = ((ts + tile_size) < n_post) ? tile_size : (n_post - ts);                 \
            for (int k0 = 0; k0 < n_conn; k0 += 32) {                                          \
                int k_lane = k0 + lane;                                                        \
                int   my_idx = (k_lane < n_conn) ? __ldg(&i_row[k_lane]) : 0;                 \
                ACC_T my_w   = (k_lane < n_conn) ? READ_W(__ldg(&w_row[k_lane])) : (ACC_T)0;  \
                for (int off = 0; off < 32 && k0 + off < n_conn; off++) {                      \
                    int   src = __shfl_sync(0xffffffff, my_idx, off);                          \
                    ACC_T wk  = __shfl_sync(0xffffffff, my_w, off);                            \
                    if ((unsigned)(src - ts) < (unsigned)tsz) {                                \
                        bool active = col_valid &&                                             \
                            IS_ACTIVE(__ldg(&matrix[(size_t)src * n_batch + safe_j]));          \
                        accum += wk * (ACC_T)active;                                           \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
        if (col_valid) output[(size_t)row * n_batch + j] = WRITE_W(accum);                     \
    }                                                                                          \
}

// -----------------------------------------------------------------------
// BGM_BASIC: Gather basic kernel (n_conn > 32)
//   - Grid-stride loop: caps block count for reduced scheduling overhead
//   - In-kernel matrix tiling: partitions source reads into L2-sized
//     ranges; indices stay in shared memory across tile passes
//   - Tree reduction: O(log nwarps) per tile pass
//   - Branchless accumulation
//   - Hetero: weights also cached in shared memory
//   - Shared memory layout: [s_idx | smem_red] (non-overlapping)
// -----------------------------------------------------------------------
#define DEFINE_BGM_BASIC_HOMO(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, READ_W, WRITE_W, ACC_ZERO)  \
__global__ void _bgm_basic_homo_kern##SUFFIX(                                                          \
    const int32_t* __restrict__ indices,                                                               \
    const SPIKE_T* __restrict__ matrix,                                                                \
    WEIGHT_T*      __restrict__ output,                                                                \
    const WEIGHT_T* __restrict__ weights,                                                              \
    int n_pre, int n_conn, int n_batch, int n_post, int tile_size                                      \
) {                                                                                                    \
    extern __shared__ char _smem_bytes[];                                                              \
    int32_t* s_idx    = reinterpret_cast<int32_t*>(_smem_bytes);                                       \
    size_t   red_off  = ((size_t)n_conn * sizeof(int32_t) + 7) & ~(size_t)7;                           \
    ACC_T*   smem_red = reinterpret_cast<ACC_T*>(_smem_bytes + red_off);                               \
    int lane   = threadIdx.x & 31;                                                                     \
    int warpid = threadIdx.x >> 5;                                                                     \
    int nwarps = blockDim.x >> 5;                                                                      \
    int j = (int)blockIdx.y * 32 + lane;                                                               \
    bool col_valid = (j < n_batch);                                                                    \
    int  safe_j    = col_valid ? j : 0;                                                                \
    ACC_T w0 = READ_W(__ldg(&weights[0]));                                                             \
    for (int row = blockIdx.x; row < n_pre; row += gridDim.x) {                                        \
        const int32_t* i_row = indices + (size_t)row * n_conn;                                         \
        for (int i = threadIdx.x; i < n_conn; i += blockDim.x) s_idx[i] = __ldg(&i_row[i]);           \
        __syncthreads();                                                                               \
        ACC_T total = ACC_ZERO;                                                                        \
        for (int ts = 0; ts < n_post; ts += tile_size) {                                               \
            int tsz = ((ts + tile_size) < n_post) ? tile_size : (n_post - ts);                         \
            ACC_T accum = ACC_ZERO;                                                                    \
            for (int k = warpid; k < n_conn; k += nwarps) {                                            \
                int src = s_idx[k];                                                                    \
                if ((unsigned)(src - ts) < (unsigned)tsz) {                                            \
                    bool active = col_valid &&                                                         \
                        IS_ACTIVE(__ldg(&matrix[(size_t)src * n_batch + safe_j]));                      \
                    accum += (ACC_T)active;                                                            \
                }                                                                                      \
            }                                                                                          \
            __syncthreads();                                                                           \
            smem_red[warpid * 32 + lane] = accum;                                                      \
            __syncthreads();                                                                           \
            for (int stride = nwarps >> 1; stride > 0; stride >>= 1) {                                \
                if (warpid < stride)                                                                   \
                    smem_red[warpid * 32 + lane] += smem_red[(warpid + stride) * 32 + lane];           \
                __syncthreads();                                                                       \
            }                                                                                          \
            if (warpid == 0) total += smem_red[lane];                                                  \
        }                                                                                              \
        if (warpid == 0 && col_valid)                                                                  \
            output[(size_t)row * n_batch + j] = WRITE_W(w0 * total);                                   \
        __syncthreads();                                                                               \
    }                                                                                                  \
}

#define DEFINE_BGM_BASIC_HETERO(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, READ_W, WRITE_W, ACC_ZERO) \
__global__ void _bgm_basic_hetero_kern##SUFFIX(                                                         \
    const int32_t* __restrict__ indices,                                                                \
    const SPIKE_T* __restrict__ matrix,                                                                 \
    WEIGHT_T*      __restrict__ output,                                                                 \
    const WEIGHT_T* __restrict__ weights,                                                               \
    int n_pre, int n_conn, int n_batch, int n_post, int tile_size                                       \
) {                                                                                                     \
    extern __shared__ char _smem_bytes[];                                                               \
    int32_t*  s_idx = reinterpret_cast<int32_t*>(_smem_bytes);                                          \
    size_t wt_off = ((size_t)n_conn * sizeof(int32_t) + 7) & ~(size_t)7;                               \
    WEIGHT_T* s_wt = reinterpret_cast<WEIGHT_T*>(_smem_bytes + wt_off);                                \
    size_t red_off = wt_off + (size_t)n_conn * sizeof(WEIGHT_T);                                       \
    red_off = (red_off + 7) & ~(size_t)7;                                                              \
    ACC_T* smem_red = reinterpret_cast<ACC_T*>(_smem_bytes + red_off);                                  \
    int lane   = threadIdx.x & 31;                                                                      \
    int warpid = threadIdx.x >> 5;                                                                      \
    int nwarps = blockDim.x >> 5;                                                                       \
    int j = (int)blockIdx.y * 32 + lane;                                                                \
    bool col_valid = (j < n_batch);                                                                     \
    int  safe_j    = col_valid ? j : 0;                                                                 \
    for (int row = blockIdx.x; row < n_pre; row += gridDim.x) {                                         \
        const int32_t*  i_row = indices + (size_t)row * n_conn;                                         \
        const WEIGHT_T* w_row = weights + (size_t)row * n_conn;                                         \
        for (int i = threadIdx.x; i < n_conn; i += blockDim.x) {                                        \
            s_idx[i] = __ldg(&i_row[i]);                                                                \
            s_wt[i]  = __ldg(&w_row[i]);                                                                \
        }                                                                                               \
        __syncthreads();                                                                                \
        ACC_T total = ACC_ZERO;                                                                         \
        for (int ts = 0; ts < n_post; ts += tile_size) {                                                \
            int tsz = ((ts + tile_size) < n_post) ? tile_size : (n_post - ts);                          \
            ACC_T accum = ACC_ZERO;                                                                     \
            for (int k = warpid; k < n_conn; k += nwarps) {                                             \
                int src = s_idx[k];                                                                     \
                if ((unsigned)(src - ts) < (unsigned)tsz) {                                             \
                    bool active = col_valid &&                                                          \
                        IS_ACTIVE(__ldg(&matrix[(size_t)src * n_batch + safe_j]));                       \
                    accum += READ_W(s_wt[k]) * (ACC_T)active;                                          \
                }                                                                                       \
            }                                                                                           \
            __syncthreads();                                                                            \
            smem_red[warpid * 32 + lane] = accum;                                                       \
            __syncthreads();                                                                            \
            for (int stride = nwarps >> 1; stride > 0; stride >>= 1) {                                 \
                if (warpid < stride)                                                                    \
                    smem_red[warpid * 32 + lane] += smem_red[(warpid + stride) * 32 + lane];            \
                __syncthreads();                                                                        \
            }                                                                                           \
            if (warpid == 0) total += smem_red[lane];                                                   \
        }                                                                                               \
        if (warpid == 0 && col_valid)                                                                   \
            output[(size_t)row * n_batch + j] = WRITE_W(total);                                         \
        __syncthreads();                                                                                \
    }                                                                                                   \
}

// -----------------------------------------------------------------------
// PACK_SPIKES: Packing kernel — convert spike matrix to bit-packed uint32
//   - One thread per matrix row; each row packs n_batch bits into
//     ceil(n_batch/32) uint32 words.
//   - Launched before packed gather kernels to compress the spike matrix
//     so that it fits in L2 cache.
// -----------------------------------------------------------------------
#define DEFINE_PACK_SPIKES(SUFFIX, SPIKE_T, IS_ACTIVE)                              \
__global__ void _pack_spikes##SUFFIX(                                               \
    const SPIKE_T* __restrict__ matrix,                                             \
    uint32_t*      __restrict__ packed,                                             \
    int n_rows, int n_batch, int n_batch_words                                      \
) {                                                                                 \
    int row = (int)blockIdx.x * (int)blockDim.x + (int)threadIdx.x;                \
    if (row >= n_rows) return;                                                      \
    const SPIKE_T* mrow = matrix + (size_t)row * n_batch;                           \
    uint32_t* prow = packed + (size_t)row * n_batch_words;                          \
    for (int w = 0; w < n_batch_words; w++) {                                       \
        uint32_t bits = 0u;                                                         \
        int base_j = w << 5;                                                        \
        for (int b = 0; b < 32 && (base_j + b) < n_batch; b++) {                   \
            if (IS_ACTIVE(mrow[base_j + b]))                                        \
                bits |= (1u << b);                                                  \
        }                                                                           \
        prow[w] = bits;                                                             \
    }                                                                               \
}

DEFINE_PACK_SPIKES(_bool, uint8_t, IS_ACTIVE_BOOL)
DEFINE_PACK_SPIKES(_f32,  float,   IS_ACTIVE_F32)
DEFINE_PACK_SPIKES(_f64,  double,  IS_ACTIVE_F64)
DEFINE_PACK_SPIKES(_f16,  __half,  IS_ACTIVE_F16)
DEFINE_PACK_SPIKES(_bf16, __nv_bfloat16, IS_ACTIVE_BF16)

// -----------------------------------------------------------------------
// BGM_PACKED_WARP: Packed gather warp/WPR kernel (temporarily supports any n_conn)
//   - Reads from bit-packed uint32 matrix instead of raw spike matrix
//   - Grid-stride loop over output rows
//   - All threads in a warp read the SAME uint32 word per source
//     (natural broadcast — single L2 transaction per connection)
//   - Packed matrix fits in L2 → random reads become L2 hits
// -----------------------------------------------------------------------
#define DEFINE_BGM_PACKED_WARP_HOMO(SUFFIX, WEIGHT_T, ACC_T, READ_W, WRITE_W)       \
__global__ void _bgm_packed_warp_homo_kern##SUFFIX(                                 \
    const int32_t*  __restrict__ indices,                                            \
    const uint32_t* __restrict__ packed,                                             \
    WEIGHT_T*       __restrict__ output,                                             \
    const WEIGHT_T* __restrict__ weights,                                            \
    int n_pre, int n_conn, int n_batch, int n_batch_words                            \
) {                                                                                 \
    int warp_id = threadIdx.x >> 5;                                                 \
    int lane    = threadIdx.x & 31;                                                 \
    int rpb     = blockDim.x >> 5;                                                  \
    int bw      = (int)blockIdx.y;                                                  \
    int j       = bw * 32 + lane;                                                   \
    bool col_valid = (j < n_batch);                                                 \
    ACC_T w0 = READ_W(__ldg(&weights[0]));                                          \
    for (int base = blockIdx.x * rpb; base < n_pre; base += gridDim.x * rpb) {     \
        int row = base + warp_id;                                                   \
        if (row >= n_pre) continue;                                                 \
        const int32_t* i_row = indices + (size_t)row * n_conn;                      \
        ACC_T accum = (ACC_T)0;                                                     \
        for (int k0 = 0; k0 < n_conn; k0 += 32) {                                   \
            int k_lane = k0 + lane;                                                 \
            int my_idx = (k_lane < n_conn) ? __ldg(&i_row[k_lane]) : 0;             \
            for (int off = 0; off < 32 && k0 + off < n_conn; off++) {               \
                int src = __shfl_sync(0xffffffff, my_idx, off);                     \
                uint32_t word = __ldg(&packed[(size_t)src * n_batch_words + bw]);    \
                accum += (ACC_T)(col_valid & ((word >> lane) & 1u));                \
            }                                                                        \
        }                                                                           \
        if (col_valid)                                                              \
            output[(size_t)row * n_batch + j] = WRITE_W(w0 * accum);               \
    }                                                                               \
}

#define DEFINE_BGM_PACKED_WARP_HETERO(SUFFIX, WEIGHT_T, ACC_T, READ_W, WRITE_W)     \
__global__ void _bgm_packed_warp_hetero_kern##SUFFIX(                               \
    const int32_t*  __restrict__ indices,                                            \
    const uint32_t* __restrict__ packed,                                             \
    WEIGHT_T*       __restrict__ output,                                             \
    const WEIGHT_T* __restrict__ weights,                                            \
    int n_pre, int n_conn, int n_batch, int n_batch_words                            \
) {                                                                                 \
    int warp_id = threadIdx.x >> 5;                                                 \
    int lane    = threadIdx.x & 31;                                                 \
    int rpb     = blockDim.x >> 5;                                                  \
    int bw      = (int)blockIdx.y;                                                  \
    int j       = bw * 32 + lane;                                                   \
    bool col_valid = (j < n_batch);                                                 \
    for (int base = blockIdx.x * rpb; base < n_pre; base += gridDim.x * rpb) {     \
        int row = base + warp_id;                                                   \
        if (row >= n_pre) continue;                                                 \
        const int32_t*  i_row = indices + (size_t)row * n_conn;                     \
        const WEIGHT_T* w_row = weights + (size_t)row * n_conn;                     \
        ACC_T accum  = (ACC_T)0;                                                    \
        for (int k0 = 0; k0 < n_conn; k0 += 32) {                                   \
            int k_lane = k0 + lane;                                                 \
            int   my_idx = (k_lane < n_conn) ? __ldg(&i_row[k_lane]) : 0;           \
            ACC_T my_w   = (k_lane < n_conn) ? READ_W(__ldg(&w_row[k_lane])) : (ACC_T)0; \
            for (int off = 0; off < 32 && k0 + off < n_conn; off++) {               \
                int   src = __shfl_sync(0xffffffff, my_idx, off);                   \
                ACC_T wk  = __shfl_sync(0xffffffff, my_w, off);                     \
                uint32_t word = __ldg(&packed[(size_t)src * n_batch_words + bw]);    \
                accum += wk * (ACC_T)(col_valid & ((word >> lane) & 1u));           \
            }                                                                        \
        }                                                                           \
        if (col_valid) output[(size_t)row * n_batch + j] = WRITE_W(accum);          \
    }                                                                               \
}

// -----------------------------------------------------------------------
// BGM_PACKED_BASIC: Packed gather basic kernel (n_conn > 32)
//   - Reads from bit-packed uint32 matrix
//   - Grid-stride loop, shared-memory index caching, tree reduction
//   - No in-kernel tiling needed (packed matrix fits in L2)
// -----------------------------------------------------------------------
#define DEFINE_BGM_PACKED_BASIC_HOMO(SUFFIX, WEIGHT_T, ACC_T, READ_W, WRITE_W, ACC_ZERO) \
__global__ void _bgm_packed_basic_homo_kern##SUFFIX(                                      \
    const int32_t*  __restrict__ indices,                                                 \
    const uint32_t* __restrict__ packed,                                                  \
    WEIGHT_T*       __restrict__ output,                                                  \
    const WEIGHT_T* __restrict__ weights,                                                 \
    int n_pre, int n_conn, int n_batch, int n_batch_words                                 \
) {                                                                                       \
    extern __shared__ char _smem_bytes[];                                                 \
    int32_t* s_idx    = reinterpret_cast<int32_t*>(_smem_bytes);                          \
    size_t   red_off  = ((size_t)n_conn * sizeof(int32_t) + 7) & ~(size_t)7;              \
    ACC_T*   smem_red = reinterpret_cast<ACC_T*>(_smem_bytes + red_off);                  \
    int lane   = threadIdx.x & 31;                                                        \
    int warpid = threadIdx.x >> 5;                                                        \
    int nwarps = blockDim.x >> 5;                                                         \
    int bw     = (int)blockIdx.y;                                                         \
    int j      = bw * 32 + lane;                                                          \
    bool col_valid = (j < n_batch);                                                       \
    ACC_T w0 = READ_W(__ldg(&weights[0]));                                                \
    for (int row = blockIdx.x; row < n_pre; row += gridDim.x) {                           \
        const int32_t* i_row = indices + (size_t)row * n_conn;                            \
        for (int i = threadIdx.x; i < n_conn; i += blockDim.x)                            \
            s_idx[i] = __ldg(&i_row[i]);                                                  \
        __syncthreads();                                                                  \
        ACC_T accum = ACC_ZERO;                                                           \
        for (int k = warpid; k < n_conn; k += nwarps) {                                   \
            int src = s_idx[k];                                                           \
            uint32_t word = __ldg(&packed[(size_t)src * n_batch_words + bw]);              \
            accum += (ACC_T)(col_valid & ((word >> lane) & 1u));                           \
        }                                                                                 \
        __syncthreads();                                                                  \
        smem_red[warpid * 32 + lane] = accum;                                             \
        __syncthreads();                                                                  \
        for (int stride = nwarps >> 1; stride > 0; stride >>= 1) {                       \
            if (warpid < stride)                                                          \
                smem_red[warpid * 32 + lane] += smem_red[(warpid + stride) * 32 + lane];  \
            __syncthreads();                                                              \
        }                                                                                 \
        if (warpid == 0 && col_valid)                                                     \
            output[(size_t)row * n_batch + j] = WRITE_W(w0 * smem_red[lane]);             \
        __syncthreads();                                                                  \
    }                                                                                     \
}

#define DEFINE_BGM_PACKED_BASIC_HETERO(SUFFIX, WEIGHT_T, ACC_T, READ_W, WRITE_W, ACC_ZERO) \
__global__ void _bgm_packed_basic_hetero_kern##SUFFIX(                                      \
    const int32_t*  __restrict__ indices,                                                   \
    const uint32_t* __restrict__ packed,                                                    \
    WEIGHT_T*       __restrict__ output,                                                    \
    const WEIGHT_T* __restrict__ weights,                                                   \
    int n_pre, int n_conn, int n_batch, int n_batch_words                                   \
) {                                                                                         \
    extern __shared__ char _smem_bytes[];                                                   \
    int32_t*  s_idx = reinterpret_cast<int32_t*>(_smem_bytes);                              \
    size_t wt_off = ((size_t)n_conn * sizeof(int32_t) + 7) & ~(size_t)7;                   \
    WEIGHT_T* s_wt = reinterpret_cast<WEIGHT_T*>(_smem_bytes + wt_off);                    \
    size_t red_off = wt_off + (size_t)n_conn * sizeof(WEIGHT_T);                            \
    red_off = (red_off + 7) & ~(size_t)7;                                                  \
    ACC_T* smem_red = reinterpret_cast<ACC_T*>(_smem_bytes + red_off);                      \
    int lane   = threadIdx.x & 31;                                                          \
    int warpid = threadIdx.x >> 5;                                                          \
    int nwarps = blockDim.x >> 5;                                                           \
    int bw     = (int)blockIdx.y;                                                           \
    int j      = bw * 32 + lane;                                                            \
    bool col_valid = (j < n_batch);                                                         \
    for (int row = blockIdx.x; row < n_pre; row += gridDim.x) {                             \
        const int32_t*  i_row = indices + (size_t)row * n_conn;                             \
        const WEIGHT_T* w_row = weights + (size_t)row * n_conn;                             \
        for (int i = threadIdx.x; i < n_conn; i += blockDim.x) {                            \
            s_idx[i] = __ldg(&i_row[i]);                                                    \
            s_wt[i]  = __ldg(&w_row[i]);                                                    \
        }                                                                                   \
        __syncthreads();                                                                    \
        ACC_T accum = ACC_ZERO;                                                             \
        for (int k = warpid; k < n_conn; k += nwarps) {                                     \
            int src = s_idx[k];                                                             \
            uint32_t word = __ldg(&packed[(size_t)src * n_batch_words + bw]);                \
            accum += READ_W(s_wt[k]) * (ACC_T)(col_valid & ((word >> lane) & 1u));          \
        }                                                                                   \
        __syncthreads();                                                                    \
        smem_red[warpid * 32 + lane] = accum;                                               \
        __syncthreads();                                                                    \
        for (int stride = nwarps >> 1; stride > 0; stride >>= 1) {                         \
            if (warpid < stride)                                                            \
                smem_red[warpid * 32 + lane] += smem_red[(warpid + stride) * 32 + lane];    \
            __syncthreads();                                                                \
        }                                                                                   \
        if (warpid == 0 && col_valid)                                                       \
            output[(size_t)row * n_batch + j] = WRITE_W(smem_red[lane]);                    \
        __syncthreads();                                                                    \
    }                                                                                       \
}

// -----------------------------------------------------------------------
// SRAW_FCNMM: Scatter-read / aggregate-write kernel
//   - One warp handles one stored row and one batch column.
//   - Reads matrix[n_pre, n_batch], scatters active rows to output
//     physically laid out as [n_batch, n_post].
// -----------------------------------------------------------------------
#define DEFINE_SRAW_FCNMM_HOMO(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, READ_W, ATOMIC_ADD_W) \
__global__ void _sraw_fcnmm_homo_kern##SUFFIX(                                                    \
    const int32_t* __restrict__ indices,                                                          \
    const SPIKE_T* __restrict__ matrix,                                                           \
    WEIGHT_T*      __restrict__ output,                                                           \
    const WEIGHT_T* __restrict__ weights,                                                         \
    int n_pre, int n_conn, int n_post, int n_batch                                                \
) {                                                                                                \
    int warp_id = threadIdx.x >> 5;                                                                \
    int lane = threadIdx.x & 31;                                                                   \
    int row = static_cast<int>(blockIdx.x) * SRAW_FCNMM_WARPS_PER_BLOCK + warp_id;                 \
    int j = static_cast<int>(blockIdx.y);                                                          \
    if (row >= n_pre || j >= n_batch) return;                                                      \
    if (!IS_ACTIVE(__ldg(&matrix[static_cast<size_t>(row) * n_batch + j]))) return;                \
    ACC_T w0 = READ_W(__ldg(&weights[0]));                                                         \
    const int32_t* i_row = indices + static_cast<size_t>(row) * n_conn;                            \
    for (int k = lane; k < n_conn; k += SRAW_FCNMM_WARP_THREADS) {                                 \
        int target = __ldg(&i_row[k]);                                                             \
        ATOMIC_ADD_W(&output[static_cast<size_t>(j) * n_post + target], w0);                       \
    }                                                                                              \
}

#define DEFINE_SRAW_FCNMM_HETERO(SUFFIX, SPIKE_T, IS_ACTIVE, WEIGHT_T, ACC_T, READ_W, ATOMIC_ADD_W) \
__global__ void _sraw_fcnmm_hetero_kern##SUFFIX(                                                   \
    const int32_t* __restrict__ indices,                                                           \
    const SPIKE_T* __restrict__ matrix,                                                            \
    WEIGHT_T*      __restrict__ output,                                                            \
    const WEIGHT_T* __restrict__ weights,                                                          \
    int n_pre, int n_conn, int n_post, int n_batch                                                 \
) {                                                                                                 \
    int warp_id = threadIdx.x >> 5;                                                                 \
    int lane = threadIdx.x & 31;                                                                    \
    int row = static_cast<int>(blockIdx.x) * SRAW_FCNMM_WARPS_PER_BLOCK + warp_id;                  \
    int j = static_cast<int>(blockIdx.y);                                                           \
    if (row >= n_pre || j >= n_batch) return;                                                       \
    if (!IS_ACTIVE(__ldg(&matrix[static_cast<size_t>(row) * n_batch + j]))) return;                 \
    const int32_t* i_row = indices + static_cast<size_t>(row) * n_conn;                             \
    const WEIGHT_T* w_row = weights + static_cast<size_t>(row) * n_conn;                            \
    for (int k = lane; k < n_conn; k += SRAW_FCNMM_WARP_THREADS) {                                  \
        int target = __ldg(&i_row[k]);                                                              \
        ACC_T wk = READ_W(__ldg(&w_row[k]));                                                        \
        ATOMIC_ADD_W(&output[static_cast<size_t>(j) * n_post + target], wk);                        \
    }                                                                                               \
}

// Instantiations
// ---- float32 ----
DEFINE_BGM_WARP_HOMO   (_bool_f32, uint8_t, IS_ACTIVE_BOOL, float, float, READ_F32, WRITE_F32)
DEFINE_BGM_WARP_HETERO (_bool_f32, uint8_t, IS_ACTIVE_BOOL, float, float, READ_F32, WRITE_F32)
DEFINE_BGM_WARP_HOMO   (_float_f32, float, IS_ACTIVE_F32, float, float, READ_F32, WRITE_F32)
DEFINE_BGM_WARP_HETERO (_float_f32, float, IS_ACTIVE_F32, float, float, READ_F32, WRITE_F32)
DEFINE_BGM_BASIC_HOMO  (_bool_f32, uint8_t, IS_ACTIVE_BOOL, float, float, READ_F32, WRITE_F32, 0.0f)
DEFINE_BGM_BASIC_HETERO(_bool_f32, uint8_t, IS_ACTIVE_BOOL, float, float, READ_F32, WRITE_F32, 0.0f)
DEFINE_BGM_BASIC_HOMO  (_float_f32, float, IS_ACTIVE_F32, float, float, READ_F32, WRITE_F32, 0.0f)
DEFINE_BGM_BASIC_HETERO(_float_f32, float, IS_ACTIVE_F32, float, float, READ_F32, WRITE_F32, 0.0f)

// ---- float64 ----
DEFINE_BGM_WARP_HOMO   (_bool_f64, uint8_t, IS_ACTIVE_BOOL, double, double, READ_F64, WRITE_F64)
DEFINE_BGM_WARP_HETERO (_bool_f64, uint8_t, IS_ACTIVE_BOOL, double, double, READ_F64, WRITE_F64)
DEFINE_BGM_WARP_HOMO   (_float_f64, double, IS_ACTIVE_F64, double, double, READ_F64, WRITE_F64)
DEFINE_BGM_WARP_HETERO (_float_f64, double, IS_ACTIVE_F64, double, double, READ_F64, WRITE_F64)
DEFINE_BGM_BASIC_HOMO  (_bool_f64, uint8_t, IS_ACTIVE_BOOL, double, double, READ_F64, WRITE_F64, 0.0)
DEFINE_BGM_BASIC_HETERO(_bool_f64, uint8_t, IS_ACTIVE_BOOL, double, double, READ_F64, WRITE_F64, 0.0)
DEFINE_BGM_BASIC_HOMO  (_float_f64, double, IS_ACTIVE_F64, double, double, READ_F64, WRITE_F64, 0.0)
DEFINE_BGM_BASIC_HETERO(_float_f64, double, IS_ACTIVE_F64, double, double, READ_F64, WRITE_F64, 0.0)

// ---- float16 ----
DEFINE_BGM_WARP_HOMO   (_bool_f16, uint8_t, IS_ACTIVE_BOOL, __half, float, READ_F16, WRITE_F16)
DEFINE_BGM_WARP_HETERO (_bool_f16, uint8_t, IS_ACTIVE_BOOL, __half, float, READ_F16, WRITE_F16)
DEFINE_BGM_WARP_HOMO   (_float_f16, __half, IS_ACTIVE_F16, __half, float, READ_F16, WRITE_F16)
DEFINE_BGM_WARP_HETERO (_float_f16, __half, IS_ACTIVE_F16, __half, float, READ_F16, WRITE_F16)
DEFINE_BGM_BASIC_HOMO  (_bool_f16, uint8_t, IS_ACTIVE_BOOL, __half, float, READ_F16, WRITE_F16, 0.0f)
DEFINE_BGM_BASIC_HETERO(_bool_f16, uint8_t, IS_ACTIVE_BOOL, __half, float, READ_F16, WRITE_F16, 0.0f)
DEFINE_BGM_BASIC_HOMO  (_float_f16, __half, IS_ACTIVE_F16, __half, float, READ_F16, WRITE_F16, 0.0f)
DEFINE_BGM_BASIC_HETERO(_float_f16, __half, IS_ACTIVE_F16, __half, float, READ_F16, WRITE_F16, 0.0f)

// ---- bfloat16 ----
DEFINE_BGM_WARP_HOMO   (_bool_bf16, uint8_t, IS_ACTIVE_BOOL, __nv_bfloat16, float, READ_BF16, WRITE_BF16)
DEFINE_BGM_WARP_HETERO (_bool_bf16, uint8_t, IS_ACTIVE_BOOL, __nv_bfloat16, float, READ_BF16, WRITE_BF16)
DEFINE_BGM_WARP_HOMO   (_float_bf16, __nv_bfloat16, IS_ACTIVE_BF16, __nv_bfloat16, float, READ_BF16, WRITE_BF16)
DEFINE_BGM_WARP_HETERO (_float_bf16, __nv_bfloat16, IS_ACTIVE_BF16, __nv_bfloat16, float, READ_BF16, WRITE_BF16)
DEFINE_BGM_BASIC_HOMO  (_bool_bf16, uint8_t, IS_ACTIVE_BOOL, __nv_bfloat16, float, READ_BF16, WRITE_BF16, 0.0f)
DEFINE_BGM_BASIC_HETERO(_bool_bf16, uint8_t, IS_ACTIVE_BOOL, __nv_bfloat16, float, READ_BF16, WRITE_BF16, 0.0f)
DEFINE_BGM_BASIC_HOMO  (_float_bf16, __nv_bfloat16, IS_ACTIVE_BF16, __nv_bfloat16, float, READ_BF16, WRITE_BF16, 0.0f)
DEFINE_BGM_BASIC_HETERO(_float_bf16, __nv_bfloat16, IS_ACTIVE_BF16, __nv_bfloat16, float, READ_BF16, WRITE_BF16, 0.0f)

// ---- SRAW scatter kernel instantiations ----
DEFINE_SRAW_FCNMM_HOMO  (_bool_f32, uint8_t, IS_ACTIVE_BOOL, float, float, READ_F32, atomicAdd)
DEFINE_SRAW_FCNMM_HOMO  (_float_f32, float, IS_ACTIVE_F32, float, float, READ_F32, atomicAdd)
DEFINE_SRAW_FCNMM_HETERO(_bool_f32, uint8_t, IS_ACTIVE_BOOL, float, float, READ_F32, atomicAdd)
DEFINE_SRAW_FCNMM_HETERO(_float_f32, float, IS_ACTIVE_F32, float, float, READ_F32, atomicAdd)
DEFINE_SRAW_FCNMM_HOMO  (_bool_f64, uint8_t, IS_ACTIVE_BOOL, double, double, READ_F64, atomic_add_f64)
DEFINE_SRAW_FCNMM_HOMO  (_float_f64, double, IS_ACTIVE_F64, double, double, READ_F64, atomic_add_f64)
DEFINE_SRAW_FCNMM_HETERO(_bool_f64, uint8_t, IS_ACTIVE_BOOL, double, double, READ_F64, atomic_add_f64)
DEFINE_SRAW_FCNMM_HETERO(_float_f64, double, IS_ACTIVE_F64, double, double, READ_F64, atomic_add_f64)
DEFINE_SRAW_FCNMM_HOMO  (_bool_f16, uint8_t, IS_ACTIVE_BOOL, __half, float, READ_F16, atomic_add_f16)
DEFINE_SRAW_FCNMM_HOMO  (_float_f16, __half, IS_ACTIVE_F16, __half, float, READ_F16, atomic_add_f16)
DEFINE_SRAW_FCNMM_HETERO(_bool_f16, uint8_t, IS_ACTIVE_BOOL, __half, float, READ_F16, atomic_add_f16)
DEFINE_SRAW_FCNMM_HETERO(_float_f16, __half, IS_ACTIVE_F16, __half, float, READ_F16, atomic_add_f16)
DEFINE_SRAW_FCNMM_HOMO  (_bool_bf16, uint8_t, IS_ACTIVE_BOOL, __nv_bfloat16, float, READ_BF16, atomic_add_bf16)
DEFINE_SRAW_FCNMM_HOMO  (_float_bf16, __nv_bfloat16, IS_ACTIVE_BF16, __nv_bfloat16, float, READ_BF16, atomic_add_bf16)
DEFINE_SRAW_FCNMM_HETERO(_bool_bf16, uint8_t, IS_ACTIVE_BOOL, __nv_bfloat16, float, READ_BF16, atomic_add_bf16)
DEFINE_SRAW_FCNMM_HETERO(_float_bf16, __nv_bfloat16, IS_ACTIVE_BF16, __nv_bfloat16, float, READ_BF16, atomic_add_bf16)

// ---- Packed BGM kernel instantiations (weight-type only) ----
// float32
DEFINE_BGM_PACKED_WARP_HOMO   (_f32, float, float, READ_F32, WRITE_F32)
DEFINE_BGM_PACKED_WARP_HETERO (_f32, float, float, READ_F32, WRITE_F32)
DEFINE_BGM_PACKED_BASIC_HOMO  (_f32, float, float, READ_F32, WRITE_F32, 0.0f)
DEFINE_BGM_PACKED_BASIC_HETERO(_f32, float, float, READ_F32, WRITE_F32, 0.0f)
// float64
DEFINE_BGM_PACKED_WARP_HOMO   (_f64, double, double, READ_F64, WRITE_F64)
DEFINE_BGM_PACKED_WARP_HETERO (_f64, double, double, READ_F64, WRITE_F64)
DEFINE_BGM_PACKED_BASIC_HOMO  (_f64, double, double, READ_F64, WRITE_F64, 0.0)
DEFINE_BGM_PACKED_BASIC_HETERO(_f64, double, double, READ_F64, WRITE_F64, 0.0)
// float16
DEFINE_BGM_PACKED_WARP_HOMO   (_f16, __half, float, READ_F16, WRITE_F16)
DEFINE_BGM_PACKED_WARP_HETERO (_f16, __half, float, READ_F16, WRITE_F16)
DEFINE_BGM_PACKED_BASIC_HOMO  (_f16, __half, float, READ_F16, WRITE_F16, 0.0f)
DEFINE_BGM_PACKED_BASIC_HETERO(_f16, __half, float, READ_F16, WRITE_F16, 0.0f)
// bfloat16
DEFINE_BGM_PACKED_WARP_HOMO   (_bf16, __nv_bfloat16, float, READ_BF16, WRITE_BF16)
DEFINE_BGM_PACKED_WARP_HETERO (_bf16, __nv_bfloat16, float, READ_BF16, WRITE_BF16)
DEFINE_BGM_PACKED_BASIC_HOMO  (_bf16, __nv_bfloat16, float, READ_BF16, WRITE_BF16, 0.0f)
DEFINE_BGM_PACKED_BASIC_HETERO(_bf16, __nv_bfloat16, float, READ_BF16, WRITE_BF16, 0.0f)

// ============================================================================
// FFI Macros for SpMM
// ============================================================================

// ---- FFI macro: gather homo warp (unpacked path) ----
#define FFI_BGM_HOMO_WARP(SUFFIX, WEIGHT_C_T, SPIKE_C_T)                                                    \
void binary_fcnmm_gather_homo_warp##SUFFIX(                                                                 \
    const BE::Tensor weights, const BE::Tensor indices,                                                      \
    const BE::Tensor matrix,  BE::Tensor output, int64_t stream                                              \
) {                                                                                                          \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                 \
    int n_pre   = static_cast<int>(indices.size(0));                                                         \
    int n_conn  = static_cast<int>(indices.size(1));                                                         \
    int n_post  = static_cast<int>(matrix.size(0));                                                          \
    int n_batch = static_cast<int>(matrix.size(1));                                                          \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                            \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                               \
    const SPIKE_C_T*  d_mat = static_cast<const SPIKE_C_T*>(matrix.data_ptr());                              \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                   \
    int rpb = WARP_ROWS_PER_BLOCK;                                                                           \
    int batch_tiles = (n_batch + 31) / 32;                                                                   \
    int raw_gx = (n_pre + rpb - 1) / rpb;                                                                   \
    int grid_x = (raw_gx < BGM_MAX_GRID_X) ? raw_gx : BGM_MAX_GRID_X;                                      \
    dim3 grid(grid_x, batch_tiles);                                                                          \
    _bgm_warp_homo_kern##SUFFIX<<<grid, rpb * 32, 0, s>>>(                                                  \
        d_idx, d_mat, d_out, d_w, n_pre, n_conn, n_batch, n_post, n_post);                                  \
}

// ---- FFI macro: gather hetero warp (unpacked path) ----
#define FFI_BGM_HETERO_WARP(SUFFIX, WEIGHT_C_T, SPIKE_C_T)                                                  \
void binary_fcnmm_gather_hetero_warp##SUFFIX(                                                                \
    const BE::Tensor weights, const BE::Tensor indices,                                                      \
    const BE::Tensor matrix,  BE::Tensor output, int64_t stream                                              \
) {                                                                                                          \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                 \
    int n_pre   = static_cast<int>(indices.size(0));                                                         \
    int n_conn  = static_cast<int>(indices.size(1));                                                         \
    int n_post  = static_cast<int>(matrix.size(0));                                                          \
    int n_batch = static_cast<int>(matrix.size(1));                                                          \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                            \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                               \
    const SPIKE_C_T*  d_mat = static_cast<const SPIKE_C_T*>(matrix.data_ptr());                              \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                   \
    int rpb = WARP_ROWS_PER_BLOCK;                                                                           \
    int batch_tiles = (n_batch + 31) / 32;                                                                   \
    int raw_gx = (n_pre + rpb - 1) / rpb;                                                                   \
    int grid_x = (raw_gx < BGM_MAX_GRID_X) ? raw_gx : BGM_MAX_GRID_X;                                      \
    dim3 grid(grid_x, batch_tiles);                                                                          \
    _bgm_warp_hetero_kern##SUFFIX<<<grid, rpb * 32, 0, s>>>(                                                \
        d_idx, d_mat, d_out, d_w, n_pre, n_conn, n_batch, n_post, n_post);                                  \
}

// ---- FFI macro: gather homo basic (unpacked path) ----
#define FFI_BGM_HOMO_BASIC(SUFFIX, WEIGHT_C_T, SPIKE_C_T, ACC_SIZE)                                         \
void binary_fcnmm_gather_homo_basic##SUFFIX(                                                                \
    const BE::Tensor weights, const BE::Tensor indices,                                                     \
    const BE::Tensor matrix,  BE::Tensor output, int64_t stream                                             \
) {                                                                                                         \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                \
    int n_pre   = static_cast<int>(indices.size(0));                                                        \
    int n_conn  = static_cast<int>(indices.size(1));                                                        \
    int n_post  = static_cast<int>(matrix.size(0));                                                         \
    int n_batch = static_cast<int>(matrix.size(1));                                                         \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                           \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                              \
    const SPIKE_C_T*  d_mat = static_cast<const SPIKE_C_T*>(matrix.data_ptr());                             \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                  \
    int bsz = 256; int nwarps = bsz >> 5;                                                                   \
    size_t idx_bytes = (size_t)n_conn * sizeof(int32_t);                                                    \
    size_t red_off = (idx_bytes + 7) & ~(size_t)7;                                                          \
    size_t shm = red_off + (size_t)nwarps * 32 * ACC_SIZE;                                                  \
    int batch_tiles = (n_batch + 31) / 32;                                                                  \
    int grid_x = (n_pre < BGM_MAX_GRID_X) ? n_pre : BGM_MAX_GRID_X;                                        \
    dim3 grid(grid_x, batch_tiles);                                                                         \
    _bgm_basic_homo_kern##SUFFIX<<<grid, bsz, shm, s>>>(                                                   \
        d_idx, d_mat, d_out, d_w, n_pre, n_conn, n_batch, n_post, n_post);                                 \
}

// ---- FFI macro: gather hetero basic (unpacked path) ----
#define FFI_BGM_HETERO_BASIC(SUFFIX, WEIGHT_C_T, SPIKE_C_T, ACC_SIZE)                                       \
void binary_fcnmm_gather_hetero_basic##SUFFIX(                                                              \
    const BE::Tensor weights, const BE::Tensor indices,                                                     \
    const BE::Tensor matrix,  BE::Tensor output, int64_t stream                                             \
) {                                                                                                         \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                \
    int n_pre   = static_cast<int>(indices.size(0));                                                        \
    int n_conn  = static_cast<int>(indices.size(1));                                                        \
    int n_post  = static_cast<int>(matrix.size(0));                                                         \
    int n_batch = static_cast<int>(matrix.size(1));                                                         \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                           \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                              \
    const SPIKE_C_T*  d_mat = static_cast<const SPIKE_C_T*>(matrix.data_ptr());                             \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                  \
    int bsz = 256; int nwarps = bsz >> 5;                                                                   \
    size_t wt_off = ((size_t)n_conn * sizeof(int32_t) + 7) & ~(size_t)7;                                   \
    size_t idx_wt_bytes = wt_off + (size_t)n_conn * sizeof(WEIGHT_C_T);                                     \
    size_t red_off = (idx_wt_bytes + 7) & ~(size_t)7;                                                      \
    size_t shm = red_off + (size_t)nwarps * 32 * ACC_SIZE;                                                  \
    int batch_tiles = (n_batch + 31) / 32;                                                                  \
    int grid_x = (n_pre < BGM_MAX_GRID_X) ? n_pre : BGM_MAX_GRID_X;                                        \
    dim3 grid(grid_x, batch_tiles);                                                                         \
    _bgm_basic_hetero_kern##SUFFIX<<<grid, bsz, shm, s>>>(                                                 \
        d_idx, d_mat, d_out, d_w, n_pre, n_conn, n_batch, n_post, n_post);                                 \
}

// ---- FFI macro: spike packing (float/bool → uint32 bitmask) ----
// Input: matrix[n_rows, n_batch], Output: packed[n_rows, n_batch_words]
#define FFI_PACK_SPIKES(SUFFIX, SPIKE_C_T, PACK_SFX)                                                        \
void binary_fcnmm_pack##SUFFIX(                                                                             \
    const BE::Tensor matrix, BE::Tensor packed, int64_t stream                                               \
) {                                                                                                          \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                 \
    int n_rows  = static_cast<int>(matrix.size(0));                                                          \
    int n_batch = static_cast<int>(matrix.size(1));                                                          \
    int nbw     = static_cast<int>(packed.size(1));                                                          \
    const SPIKE_C_T* d_mat = static_cast<const SPIKE_C_T*>(matrix.data_ptr());                               \
    uint32_t*        d_pk  = static_cast<uint32_t*>(packed.data_ptr());                                      \
    _pack_spikes##PACK_SFX<<<(n_rows + 255) / 256, 256, 0, s>>>(d_mat, d_pk, n_rows, n_batch, nbw);        \
}

// ---- FFI macro: packed gather homo warp (operates on uint32 bitmask) ----
#define FFI_BGM_PACKED_HOMO_WARP(SUFFIX, WEIGHT_C_T)                                                         \
void binary_fcnmm_gather_packed_homo_warp##SUFFIX(                                                           \
    const BE::Tensor weights, const BE::Tensor indices,                                                      \
    const BE::Tensor packed,  BE::Tensor output, int64_t stream                                              \
) {                                                                                                          \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                 \
    int n_pre   = static_cast<int>(indices.size(0));                                                         \
    int n_conn  = static_cast<int>(indices.size(1));                                                         \
    int n_batch = static_cast<int>(output.size(1));                                                          \
    int nbw     = static_cast<int>(packed.size(1));                                                          \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                            \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                               \
    const uint32_t*   d_pk  = static_cast<const uint32_t*>(packed.data_ptr());                               \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                   \
    int rpb = WARP_ROWS_PER_BLOCK;                                                                           \
    int batch_tiles = (n_batch + 31) / 32;                                                                   \
    int raw_gx = (n_pre + rpb - 1) / rpb;                                                                   \
    int grid_x = (raw_gx < BGM_MAX_GRID_X) ? raw_gx : BGM_MAX_GRID_X;                                      \
    dim3 grid(grid_x, batch_tiles);                                                                          \
    _bgm_packed_warp_homo_kern##SUFFIX<<<grid, rpb * 32, 0, s>>>(                                            \
        d_idx, d_pk, d_out, d_w, n_pre, n_conn, n_batch, nbw);                                              \
}

// ---- FFI macro: packed gather hetero warp ----
#define FFI_BGM_PACKED_HETERO_WARP(SUFFIX, WEIGHT_C_T)                                                       \
void binary_fcnmm_gather_packed_hetero_warp##SUFFIX(                                                         \
    const BE::Tensor weights, const BE::Tensor indices,                                                      \
    const BE::Tensor packed,  BE::Tensor output, int64_t stream                                              \
) {                                                                                                          \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                 \
    int n_pre   = static_cast<int>(indices.size(0));                                                         \
    int n_conn  = static_cast<int>(indices.size(1));                                                         \
    int n_batch = static_cast<int>(output.size(1));                                                          \
    int nbw     = static_cast<int>(packed.size(1));                                                          \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                            \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                               \
    const uint32_t*   d_pk  = static_cast<const uint32_t*>(packed.data_ptr());                               \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                   \
    int rpb = WARP_ROWS_PER_BLOCK;                                                                           \
    int batch_tiles = (n_batch + 31) / 32;                                                                   \
    int raw_gx = (n_pre + rpb - 1) / rpb;                                                                   \
    int grid_x = (raw_gx < BGM_MAX_GRID_X) ? raw_gx : BGM_MAX_GRID_X;                                      \
    dim3 grid(grid_x, batch_tiles);                                                                          \
    _bgm_packed_warp_hetero_kern##SUFFIX<<<grid, rpb * 32, 0, s>>>(                                          \
        d_idx, d_pk, d_out, d_w, n_pre, n_conn, n_batch, nbw);                                              \
}

// ---- FFI macro: packed gather homo basic ----
#define FFI_BGM_PACKED_HOMO_BASIC(SUFFIX, WEIGHT_C_T, ACC_SIZE)                                              \
void binary_fcnmm_gather_packed_homo_basic##SUFFIX(                                                          \
    const BE::Tensor weights, const BE::Tensor indices,                                                      \
    const BE::Tensor packed,  BE::Tensor output, int64_t stream                                              \
) {                                                                                                          \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                 \
    int n_pre   = static_cast<int>(indices.size(0));                                                         \
    int n_conn  = static_cast<int>(indices.size(1));                                                         \
    int n_batch = static_cast<int>(output.size(1));                                                          \
    int nbw     = static_cast<int>(packed.size(1));                                                          \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                            \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                               \
    const uint32_t*   d_pk  = static_cast<const uint32_t*>(packed.data_ptr());                               \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                   \
    int bsz = 256; int nwarps = bsz >> 5;                                                                    \
    size_t idx_bytes = (size_t)n_conn * sizeof(int32_t);                                                     \
    size_t red_off = (idx_bytes + 7) & ~(size_t)7;                                                           \
    size_t shm = red_off + (size_t)nwarps * 32 * ACC_SIZE;                                                   \
    int batch_tiles = (n_batch + 31) / 32;                                                                   \
    int grid_x = (n_pre < BGM_MAX_GRID_X) ? n_pre : BGM_MAX_GRID_X;                                         \
    dim3 grid(grid_x, batch_tiles);                                                                          \
    _bgm_packed_basic_homo_kern##SUFFIX<<<grid, bsz, shm, s>>>(                                              \
        d_idx, d_pk, d_out, d_w, n_pre, n_conn, n_batch, nbw);                                              \
}

// ---- FFI macro: packed gather hetero basic ----
#define FFI_BGM_PACKED_HETERO_BASIC(SUFFIX, WEIGHT_C_T, ACC_SIZE)                                            \
void binary_fcnmm_gather_packed_hetero_basic##SUFFIX(                                                        \
    const BE::Tensor weights, const BE::Tensor indices,                                                      \
    const BE::Tensor packed,  BE::Tensor output, int64_t stream                                              \
) {                                                                                                          \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                 \
    int n_pre   = static_cast<int>(indices.size(0));                                                         \
    int n_conn  = static_cast<int>(indices.size(1));                                                         \
    int n_batch = static_cast<int>(output.size(1));                                                          \
    int nbw     = static_cast<int>(packed.size(1));                                                          \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                            \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                               \
    const uint32_t*   d_pk  = static_cast<const uint32_t*>(packed.data_ptr());                               \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                   \
    int bsz = 256; int nwarps = bsz >> 5;                                                                    \
    size_t wt_off = ((size_t)n_conn * sizeof(int32_t) + 7) & ~(size_t)7;                                    \
    size_t idx_wt_bytes = wt_off + (size_t)n_conn * sizeof(WEIGHT_C_T);                                      \
    size_t red_off = (idx_wt_bytes + 7) & ~(size_t)7;                                                       \
    size_t shm = red_off + (size_t)nwarps * 32 * ACC_SIZE;                                                   \
    int batch_tiles = (n_batch + 31) / 32;                                                                   \
    int grid_x = (n_pre < BGM_MAX_GRID_X) ? n_pre : BGM_MAX_GRID_X;                                         \
    dim3 grid(grid_x, batch_tiles);                                                                          \
    _bgm_packed_basic_hetero_kern##SUFFIX<<<grid, bsz, shm, s>>>(                                            \
        d_idx, d_pk, d_out, d_w, n_pre, n_conn, n_batch, nbw);                                              \
}

// ---- FFI macro: SRAW scatter homo ----
#define FFI_SRAW_FCNMM_HOMO(SUFFIX, WEIGHT_C_T, SPIKE_C_T)                                                   \
void binary_fcnmm_sraw_homo##SUFFIX(                                                                         \
    const BE::Tensor weights, const BE::Tensor indices,                                                       \
    const BE::Tensor matrix, BE::Tensor output, int64_t stream                                                \
) {                                                                                                           \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                  \
    int n_pre   = static_cast<int>(indices.size(0));                                                          \
    int n_conn  = static_cast<int>(indices.size(1));                                                          \
    int n_post  = static_cast<int>(output.size(1));                                                           \
    int n_batch = static_cast<int>(matrix.size(1));                                                           \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                             \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                                \
    const SPIKE_C_T*  d_mat = static_cast<const SPIKE_C_T*>(matrix.data_ptr());                               \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                    \
    BE_CUDA_CHECK(cudaMemsetAsync(                                                                            \
        d_out, 0, static_cast<size_t>(output.size(0)) * output.size(1) * sizeof(WEIGHT_C_T), s));             \
    if (n_pre == 0 || n_conn == 0 || n_batch == 0) return;                                                    \
    int grid_x = (n_pre + SRAW_FCNMM_WARPS_PER_BLOCK - 1) / SRAW_FCNMM_WARPS_PER_BLOCK;                       \
    dim3 grid(grid_x, n_batch);                                                                               \
    _sraw_fcnmm_homo_kern##SUFFIX<<<grid, SRAW_FCNMM_BLOCK_THREADS, 0, s>>>(                                   \
        d_idx, d_mat, d_out, d_w, n_pre, n_conn, n_post, n_batch);                                            \
    BE_CHECK_KERNEL_LAUNCH();                                                                                 \
}

// ---- FFI macro: SRAW scatter hetero ----
#define FFI_SRAW_FCNMM_HETERO(SUFFIX, WEIGHT_C_T, SPIKE_C_T)                                                 \
void binary_fcnmm_sraw_hetero##SUFFIX(                                                                       \
    const BE::Tensor weights, const BE::Tensor indices,                                                       \
    const BE::Tensor matrix, BE::Tensor output, int64_t stream                                                \
) {                                                                                                           \
    cudaStream_t s = reinterpret_cast<cudaStream_t>(stream);                                                  \
    int n_pre   = static_cast<int>(indices.size(0));                                                          \
    int n_conn  = static_cast<int>(indices.size(1));                                                          \
    int n_post  = static_cast<int>(output.size(1));                                                           \
    int n_batch = static_cast<int>(matrix.size(1));                                                           \
    const WEIGHT_C_T* d_w   = static_cast<const WEIGHT_C_T*>(weights.data_ptr());                             \
    const int32_t*    d_idx = static_cast<const int32_t*>(indices.data_ptr());                                \
    const SPIKE_C_T*  d_mat = static_cast<const SPIKE_C_T*>(matrix.data_ptr());                               \
    WEIGHT_C_T*       d_out = static_cast<WEIGHT_C_T*>(output.data_ptr());                                    \
    BE_CUDA_CHECK(cudaMemsetAsync(                                                                            \
        d_out, 0, static_cast<size_t>(output.size(0)) * output.size(1) * sizeof(WEIGHT_C_T), s));             \
    if (n_pre == 0 || n_conn == 0 || n_batch == 0) return;                                                    \
    int grid_x = (n_pre + SRAW_FCNMM_WARPS_PER_BLOCK - 1) / SRAW_FCNMM_WARPS_PER_BLOCK;                       \
    dim3 grid(grid_x, n_batch);                                                                               \
    _sraw_fcnmm_hetero_kern##SUFFIX<<<grid, SRAW_FCNMM_BLOCK_THREADS, 0, s>>>(                                 \
        d_idx, d_mat, d_out, d_w, n_pre, n_conn, n_post, n_batch);                                            \
    BE_CHECK_KERNEL_LAUNCH();                                                                                 \
}

// ============================================================================
// SpMM FFI Instantiations
// ============================================================================

// ---- float32: unpacked gather ----
// @BE binary_fcnmm_gather_homo_warp_bool_f32
FFI_BGM_HOMO_WARP  (_bool_f32, float, uint8_t)
// @BE binary_fcnmm_gather_hetero_warp_bool_f32
FFI_BGM_HETERO_WARP(_bool_f32, float, uint8_t)
// @BE binary_fcnmm_gather_homo_warp_float_f32
FFI_BGM_HOMO_WARP  (_float_f32, float, float)
// @BE binary_fcnmm_gather_hetero_warp_float_f32
FFI_BGM_HETERO_WARP(_float_f32, float, float)
// @BE binary_fcnmm_gather_homo_basic_bool_f32
FFI_BGM_HOMO_BASIC (_bool_f32, float, uint8_t, sizeof(float))
// @BE binary_fcnmm_gather_hetero_basic_bool_f32
FFI_BGM_HETERO_BASIC(_bool_f32, float, uint8_t, sizeof(float))
// @BE binary_fcnmm_gather_homo_basic_float_f32
FFI_BGM_HOMO_BASIC (_float_f32, float, float, sizeof(float))
// @BE binary_fcnmm_gather_hetero_basic_float_f32
FFI_BGM_HETERO_BASIC(_float_f32, float, float, sizeof(float))
// ---- float32: packed gather ----
// @BE binary_fcnmm_gather_packed_homo_warp_f32
FFI_BGM_PACKED_HOMO_WARP  (_f32, float)
// @BE binary_fcnmm_gather_packed_hetero_warp_f32
FFI_BGM_PACKED_HETERO_WARP(_f32, float)
// @BE binary_fcnmm_gather_packed_homo_basic_f32
FFI_BGM_PACKED_HOMO_BASIC (_f32, float, sizeof(float))
// @BE binary_fcnmm_gather_packed_hetero_basic_f32
FFI_BGM_PACKED_HETERO_BASIC(_f32, float, sizeof(float))
// ---- float64: unpacked gather ----
// @BE binary_fcnmm_gather_homo_warp_bool_f64
FFI_BGM_HOMO_WARP  (_bool_f64, double, uint8_t)
// @BE binary_fcnmm_gather_hetero_warp_bool_f64
FFI_BGM_HETERO_WARP(_bool_f64, double, uint8_t)
// @BE binary_fcnmm_gather_homo_warp_float_f64
FFI_BGM_HOMO_WARP  (_float_f64, double, double)
// @BE binary_fcnmm_gather_hetero_warp_float_f64
FFI_BGM_HETERO_WARP(_float_f64, double, double)
// @BE binary_fcnmm_gather_homo_basic_bool_f64
FFI_BGM_HOMO_BASIC (_bool_f64, double, uint8_t, sizeof(double))
// @BE binary_fcnmm_gather_hetero_basic_bool_f64
FFI_BGM_HETERO_BASIC(_bool_f64, double, uint8_t, sizeof(double))
// @BE binary_fcnmm_gather_homo_basic_float_f64
FFI_BGM_HOMO_BASIC (_float_f64, double, double, sizeof(double))
// @BE binary_fcnmm_gather_hetero_basic_float_f64
FFI_BGM_HETERO_BASIC(_float_f64, double, double, sizeof(double))
// ---- float64: packed gather ----
// @BE binary_fcnmm_gather_packed_homo_warp_f64
FFI_BGM_PACKED_HOMO_WARP  (_f64, double)
// @BE binary_fcnmm_gather_packed_hetero_warp_f64
FFI_BGM_PACKED_HETERO_WARP(_f64, double)
// @BE binary_fcnmm_gather_packed_homo_basic_f64
FFI_BGM_PACKED_HOMO_BASIC (_f64, double, sizeof(double))
// @BE binary_fcnmm_gather_packed_hetero_basic_f64
FFI_BGM_PACKED_HETERO_BASIC(_f64, double, sizeof(double))
// ---- float16: unpacked gather ----
// @BE binary_fcnmm_gather_homo_warp_bool_f16
FFI_BGM_HOMO_WARP  (_bool_f16, __half, uint8_t)
// @BE binary_fcnmm_gather_hetero_warp_bool_f16
FFI_BGM_HETERO_WARP(_bool_f16, __half, uint8_t)
// @BE binary_fcnmm_gather_homo_warp_float_f16
FFI_BGM_HOMO_WARP  (_float_f16, __half, __half)
// @BE binary_fcnmm_gather_hetero_warp_float_f16
FFI_BGM_HETERO_WARP(_float_f16, __half, __half)
// @BE binary_fcnmm_gather_homo_basic_bool_f16
FFI_BGM_HOMO_BASIC (_bool_f16, __half, uint8_t, sizeof(float))
// @BE binary_fcnmm_gather_hetero_basic_bool_f16
FFI_BGM_HETERO_BASIC(_bool_f16, __half, uint8_t, sizeof(float))
// @BE binary_fcnmm_gather_homo_basic_float_f16
FFI_BGM_HOMO_BASIC (_float_f16, __half, __half, sizeof(float))
// @BE binary_fcnmm_gather_hetero_basic_float_f16
FFI_BGM_HETERO_BASIC(_float_f16, __half, __half, sizeof(float))
// ---- float16: packed gather ----
// @BE binary_fcnmm_gather_packed_homo_warp_f16
FFI_BGM_PACKED_HOMO_WARP  (_f16, __half)
// @BE binary_fcnmm_gather_packed_hetero_warp_f16
FFI_BGM_PACKED_HETERO_WARP(_f16, __half)
// @BE binary_fcnmm_gather_packed_homo_basic_f16
FFI_BGM_PACKED_HOMO_BASIC (_f16, __half, sizeof(float))
// @BE binary_fcnmm_gather_packed_hetero_basic_f16
FFI_BGM_PACKED_HETERO_BASIC(_f16, __half, sizeof(float))
// ---- bfloat16: unpacked gather ----
// @BE binary_fcnmm_gather_homo_warp_bool_bf16
FFI_BGM_HOMO_WARP  (_bool_bf16, __nv_bfloat16, uint8_t)
// @BE binary_fcnmm_gather_hetero_warp_bool_bf16
FFI_BGM_HETERO_WARP(_bool_bf16, __nv_bfloat16, uint8_t)
// @BE binary_fcnmm_gather_homo_warp_float_bf16
FFI_BGM_HOMO_WARP  (_float_bf16, __nv_bfloat16, __nv_bfloat16)
// @BE binary_fcnmm_gather_hetero_warp_float_bf16
FFI_BGM_HETERO_WARP(_float_bf16, __nv_bfloat16, __nv_bfloat16)
// @BE binary_fcnmm_gather_homo_basic_bool_bf16
FFI_BGM_HOMO_BASIC (_bool_bf16, __nv_bfloat16, uint8_t, sizeof(float))
// @BE binary_fcnmm_gather_hetero_basic_bool_bf16
FFI_BGM_HETERO_BASIC(_bool_bf16, __nv_bfloat16, uint8_t, sizeof(float))
// @BE binary_fcnmm_gather_homo_basic_float_bf16
FFI_BGM_HOMO_BASIC (_float_bf16, __nv_bfloat16, __nv_bfloat16, sizeof(float))
// @BE binary_fcnmm_gather_hetero_basic_float_bf16
FFI_BGM_HETERO_BASIC(_float_bf16, __nv_bfloat16, __nv_bfloat16, sizeof(float))
// ---- bfloat16: packed gather ----
// @BE binary_fcnmm_gather_packed_homo_warp_bf16
FFI_BGM_PACKED_HOMO_WARP  (_bf16, __nv_bfloat16)
// @BE binary_fcnmm_gather_packed_hetero_warp_bf16
FFI_BGM_PACKED_HETERO_WARP(_bf16, __nv_bfloat16)
// @BE binary_fcnmm_gather_packed_homo_basic_bf16
FFI_BGM_PACKED_HOMO_BASIC (_bf16, __nv_bfloat16, sizeof(float))
// @BE binary_fcnmm_gather_packed_hetero_basic_bf16
FFI_BGM_PACKED_HETERO_BASIC(_bf16, __nv_bfloat16, sizeof(float))

// ---- SRAW scatter FFI ----
// @BE binary_fcnmm_sraw_homo_bool_f32
FFI_SRAW_FCNMM_HOMO(_bool_f32, float, uint8_t)
// @BE binary_fcnmm_sraw_homo_float_f32
FFI_SRAW_FCNMM_HOMO(_float_f32, float, float)
// @BE binary_fcnmm_sraw_homo_bool_f64
FFI_SRAW_FCNMM_HOMO(_bool_f64, double, uint8_t)
// @BE binary_fcnmm_sraw_homo_float_f64
FFI_SRAW_FCNMM_HOMO(_float_f64, double, double)
// @BE binary_fcnmm_sraw_homo_bool_f16
FFI_SRAW_FCNMM_HOMO(_bool_f16, __half, uint8_t)
// @BE binary_fcnmm_sraw_homo_float_f16
FFI_SRAW_FCNMM_HOMO(_float_f16, __half, __half)
// @BE binary_fcnmm_sraw_homo_bool_bf16
FFI_SRAW_FCNMM_HOMO(_bool_bf16, __nv_bfloat16, uint8_t)
// @BE binary_fcnmm_sraw_homo_float_bf16
FFI_SRAW_FCNMM_HOMO(_float_bf16, __nv_bfloat16, __nv_bfloat16)
// @BE binary_fcnmm_sraw_hetero_bool_f32
FFI_SRAW_FCNMM_HETERO(_bool_f32, float, uint8_t)
// @BE binary_fcnmm_sraw_hetero_float_f32
FFI_SRAW_FCNMM_HETERO(_float_f32, float, float)
// @BE binary_fcnmm_sraw_hetero_bool_f64
FFI_SRAW_FCNMM_HETERO(_bool_f64, double, uint8_t)
// @BE binary_fcnmm_sraw_hetero_float_f64
FFI_SRAW_FCNMM_HETERO(_float_f64, double, double)
// @BE binary_fcnmm_sraw_hetero_bool_f16
FFI_SRAW_FCNMM_HETERO(_bool_f16, __half, uint8_t)
// @BE binary_fcnmm_sraw_hetero_float_f16
FFI_SRAW_FCNMM_HETERO(_float_f16, __half, __half)
// @BE binary_fcnmm_sraw_hetero_bool_bf16
FFI_SRAW_FCNMM_HETERO(_bool_bf16, __nv_bfloat16, uint8_t)
// @BE binary_fcnmm_sraw_hetero_float_bf16
FFI_SRAW_FCNMM_HETERO(_float_bf16, __nv_bfloat16, __nv_bfloat16)

// ---- Spike packing FFI ----
// @BE binary_fcnmm_pack_bool
FFI_PACK_SPIKES(_bool, uint8_t, _bool)
// @BE binary_fcnmm_pack_f32
FFI_PACK_SPIKES(_f32, float, _f32)
// @BE binary_fcnmm_pack_f64
FFI_PACK_SPIKES(_f64, double, _f64)
// @BE binary_fcnmm_pack_f16
FFI_PACK_SPIKES(_f16, __half, _f16)
// @BE binary_fcnmm_pack_bf16
FFI_PACK_SPIKES(_bf16, __nv_bfloat16, _bf16)
