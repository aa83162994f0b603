// Fused decode-step attention (v0.5): single-token causal attention with
// GQA over a contiguous kv-cache.
//
//   out[b, h] = softmax(q . K[b,kv(h)]^T / sqrt(D)) . V[b,kv(h)]
//
// Two execution strategies behind one launcher:
//
//  1. Single-kernel path (short caches / already-saturated grids): one
//     block per (batch, q head). The block's 8 warps stride the key/value
//     rows; each warp keeps a running ONLINE softmax state in registers -
//     running score max m, denominator l, and the [D] output accumulator -
//     rescaled as new maxima arrive, so scores are never materialized to
//     global memory. A shared-memory merge folds the eight warp partials
//     (weighted by exp(m_warp - m_global)) into the final normalized row.
//
//  2. Flash-decoding split path (long caches): the sequence is cut into
//     slices; stage 1 launches one block per (batch, kv head, slice) that
//     computes the online-softmax partials of ALL q heads of the GQA group
//     over its slice and writes them to a per-shape cached workspace;
//     stage 2 reduces the per-slice partials (max-rescale merge) into the
//     output rows. The grid grows with the sequence length instead of
//     being pinned at B*Hq blocks, which is what keeps long caches
//     bandwidth-saturated on small batches.
//
// Lanes cover the head dimension in 4-element chunks (D is a multiple of
// 4; every row base stays aligned for the storage width since the
// caller's buffers are torch/cudaMalloc allocations and row strides are
// multiples of the chunk size).
//
// STORAGE DTYPES (v1.1): q/k/v/out may be float32, bfloat16 or float16 -
// the kernels are templated on the storage type and compute entirely in
// float32 (loads widen at the boundary, stores narrow back
// round-to-nearest). bf16/fp16 cache rows are 8B per 4-element chunk vs
// f32's 16B: half the global bytes on the bandwidth-bound decode path.
// The workspace and every softmax/accumulator state stay float32 on all
// paths, so numerics are identical across storage dtypes up to the
// input rounding.
//
// Sequences with len == 0 (or an empty cache) write zero rows. No host
// round trips: stream-ordered on the caller's stream and CUDA-graph
// capturable (the workspace is allocated OUTSIDE captures on first use;
// a capture that races the first call falls back to the single-kernel
// path, which needs no workspace).

#include "fusedtok/attention.hpp"
#include "fusedtok/cuda_launch.hpp"
#include "cuda_util.cuh"

#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include <cmath>
#include <map>
#include <mutex>
#include <type_traits>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace fusedtok {

namespace {

constexpr int kAttBlock = 256;       // 8 warps striding the sequence
constexpr int kAttWarps = kAttBlock / 32;
constexpr int kAttMaxDim = 512;      // shared accumulator budget per warp
// float4 chunks a single lane can own: ceil((MaxDim/4) / 32)
constexpr int kAttLaneChunks = kAttMaxDim / 4 / 32;
constexpr int kAttMinSlice = 256;    // do not slice shorter spans
constexpr int kAttMaxSlices = 32;    // workspace cap on the split grid
// prefill lane-group slices: chunks/LPR per lane is at most 8 for
// every (dim band, LPR) combination the launcher picks
constexpr int kAttPrefChunks = 8;

// ---------------------------------------------------------------------------
// storage-dtype chunk traits: one 4-element chunk of q/k/v/out per access,
// widened to float4 for compute and narrowed back on store. float keeps
// the native float4 (16B); bf16/fp16 pack 4 elements into a uint2 (8B) -
// half the bytes per cache row, which is exactly the win the
// bandwidth-bound decode path is after. Alignment: D % 4 == 0 makes every
// row offset a multiple of the 8B chunk, and torch/cudaMalloc bases are
// far stricter than that.
// ---------------------------------------------------------------------------
template <typename T> struct AttChunk;

template <> struct AttChunk<float> {
    using Vec = float4;
    __device__ __forceinline__ static float4 ld(const float* p) {
        return *reinterpret_cast<const float4*>(p);
    }
    __device__ __forceinline__ static void st(float* p, float4 v) {
        *reinterpret_cast<float4*>(p) = v;
    }
    // chunk-indexed accessors: identical addresses to ld/st, but the
    // pointer math stays in chunk units exactly like the pre-template
    // code did (float4* subscripts). Kept for the prefill staging loop:
    // the element-scaled form (`ld(p + i * 4)`) compiled measurably
    // worse on sm_120 (71% slower prefill, same registers) - see the
    // v1.1.1 CHANGELOG entry.
    __device__ __forceinline__ static float4 ldc(const float* p, size_t i) {
        return reinterpret_cast<const float4*>(p)[i];
    }
    __device__ __forceinline__ static void stc(float* p, size_t i, float4 v) {
        reinterpret_cast<float4*>(p)[i] = v;
    }
};

template <> struct AttChunk<__nv_bfloat16> {
    using Vec = uint2;
    __device__ __forceinline__ static float4 ld(const __nv_bfloat16* p) {
        const uint2 u = *reinterpret_cast<const uint2*>(p);
        const float2 lo = __bfloat1622float2(
            *reinterpret_cast<const __nv_bfloat162*>(&u.x));
        const float2 hi = __bfloat1622float2(
            *reinterpret_cast<const __nv_bfloat162*>(&u.y));
        return make_float4(lo.x, lo.y, hi.x, hi.y);
    }
    __device__ __forceinline__ static void st(__nv_bfloat16* p, float4 v) {
        const __nv_bfloat162 lo = __float22bfloat162_rn(make_float2(v.x, v.y));
        const __nv_bfloat162 hi = __float22bfloat162_rn(make_float2(v.z, v.w));
        uint2 u;
        u.x = *reinterpret_cast<const unsigned*>(&lo);
        u.y = *reinterpret_cast<const unsigned*>(&hi);
        *reinterpret_cast<uint2*>(p) = u;
    }
    __device__ __forceinline__ static float4 ldc(const __nv_bfloat16* p,
                                                 size_t i) {
        const uint2 u = reinterpret_cast<const uint2*>(p)[i];
        const float2 lo = __bfloat1622float2(
            *reinterpret_cast<const __nv_bfloat162*>(&u.x));
        const float2 hi = __bfloat1622float2(
            *reinterpret_cast<const __nv_bfloat162*>(&u.y));
        return make_float4(lo.x, lo.y, hi.x, hi.y);
    }
    __device__ __forceinline__ static void stc(__nv_bfloat16* p, size_t i,
                                               float4 v) {
        const __nv_bfloat162 lo = __float22bfloat162_rn(make_float2(v.x, v.y));
        const __nv_bfloat162 hi = __float22bfloat162_rn(make_float2(v.z, v.w));
        uint2 u;
        u.x = *reinterpret_cast<const unsigned*>(&lo);
        u.y = *reinterpret_cast<const unsigned*>(&hi);
        reinterpret_cast<uint2*>(p)[i] = u;
    }
};

template <> struct AttChunk<__half> {
    using Vec = uint2;
    __device__ __forceinline__ static float4 ld(const __half* p) {
        const uint2 u = *reinterpret_cast<const uint2*>(p);
        const float2 lo = __half22float2(
            *reinterpret_cast<const __half2*>(&u.x));
        const float2 hi = __half22float2(
            *reinterpret_cast<const __half2*>(&u.y));
        return make_float4(lo.x, lo.y, hi.x, hi.y);
    }
    __device__ __forceinline__ static void st(__half* p, float4 v) {
        const __half2 lo = __float22half2_rn(make_float2(v.x, v.y));
        const __half2 hi = __float22half2_rn(make_float2(v.z, v.w));
        uint2 u;
        u.x = *reinterpret_cast<const unsigned*>(&lo);
        u.y = *reinterpret_cast<const unsigned*>(&hi);
        *reinterpret_cast<uint2*>(p) = u;
    }
    __device__ __forceinline__ static float4 ldc(const __half* p, size_t i) {
        const uint2 u = reinterpret_cast<const uint2*>(p)[i];
        const float2 lo = __half22float2(
            *reinterpret_cast<const __half2*>(&u.x));
        const float2 hi = __half22float2(
            *reinterpret_cast<const __half2*>(&u.y));
        return make_float4(lo.x, lo.y, hi.x, hi.y);
    }
    __device__ __forceinline__ static void stc(__half* p, size_t i,
                                               float4 v) {
        const __half2 lo = __float22half2_rn(make_float2(v.x, v.y));
        const __half2 hi = __float22half2_rn(make_float2(v.z, v.w));
        uint2 u;
        u.x = *reinterpret_cast<const unsigned*>(&lo);
        u.y = *reinterpret_cast<const unsigned*>(&hi);
        reinterpret_cast<uint2*>(p)[i] = u;
    }
};

void attention_check(int batch, int hq, int hkv, int t_seq, int dim) {
    if (batch < 0 || hq < 1 || hkv < 1 || t_seq < 0 || dim < 1)
        throw std::invalid_argument(
            "attention shapes must satisfy batch>=0, heads>=1, rows>=0, dim>=1");
    if (hq % hkv != 0)
        throw std::invalid_argument(
            "q heads must be a multiple of kv heads (contiguous GQA groups)");
    if (dim % 4 != 0 || dim > kAttMaxDim)
        throw std::invalid_argument("dim must be a multiple of 4 and at most 512");
}

template <typename T>
__global__ void attn_decode_kernel(const T* __restrict__ q,
                                   const T* __restrict__ k,
                                   const T* __restrict__ v,
                                   const int* __restrict__ lens,
                                   T* __restrict__ out,
                                   int hq, int hkv, int t_seq, int dim) {
    using C = AttChunk<T>;
    const int bi = blockIdx.x / hq;
    const int h = blockIdx.x % hq;
    const int len = lens ? lens[bi] : t_seq;

    T* oraw = out + ((size_t)bi * hq + h) * dim;
    const int chunks = dim / 4;

    // empty sequence: an empty softmax is defined as a zero row
    if (len == 0) {
        const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int c = threadIdx.x; c < chunks; c += kAttBlock)
            C::st(oraw + c * 4, zero);
        return;
    }

    // GQA: q heads form contiguous groups over kv heads
    const int kv = h / (hq / hkv);
    const float scale = 1.0f / sqrtf((float)dim);
    const T* qp = q + ((size_t)bi * hq + h) * dim;
    const T* kp = k + (((size_t)bi * hkv + kv) * t_seq) * dim;
    const T* vp = v + (((size_t)bi * hkv + kv) * t_seq) * dim;

    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;

    // per-lane q chunks (lane owns chunk c for c = lane, lane+32, ...)
    // plus the running online-softmax accumulator over this warp's keys;
    // `j` is the per-lane chunk index used consistently from load to
    // store (a second name for the same mapping hides the invariant)
    float4 qv[kAttLaneChunks];
    float4 acc[kAttLaneChunks];
    int j = 0;
    for (int c = lane; c < chunks; c += 32, ++j)
        qv[j] = C::ld(qp + c * 4);
    for (int i = 0; i < kAttLaneChunks; ++i)
        acc[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float m = -INFINITY;   // running max of this warp's scaled scores
    float l = 0.0f;        // running softmax denominator

    // 8 warps stride the sequence, each with an independent online
    // softmax; warp-local maxima merge later in shared memory
    for (int t = warp; t < len; t += kAttWarps) {
        const T* krow = kp + (size_t)t * dim;
        float dot = 0.0f;
        j = 0;
        for (int c = lane; c < chunks; c += 32, ++j) {
            const float4 kk = C::ld(krow + c * 4);
            dot += qv[j].x * kk.x + qv[j].y * kk.y
                 + qv[j].z * kk.z + qv[j].w * kk.w;
        }
        #pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            dot += __shfl_down_sync(0xffffffffu, dot, off);
        const float s = __shfl_sync(0xffffffffu, dot, 0) * scale;

        // rescale the running state to the new max (exact 1.0 when the
        // max is unchanged; exp(-inf) = 0 handles the first key)
        const float m_new = fmaxf(m, s);
        const float rescale = expf(m - m_new);
        const float p = expf(s - m_new);
        l = l * rescale + p;
        j = 0;
        for (int c = lane; c < chunks; c += 32, ++j) {
            const float4 vv = C::ld(vp + ((size_t)t * chunks + c) * 4);
            acc[j].x = acc[j].x * rescale + p * vv.x;
            acc[j].y = acc[j].y * rescale + p * vv.y;
            acc[j].z = acc[j].z * rescale + p * vv.z;
            acc[j].w = acc[j].w * rescale + p * vv.w;
        }
        m = m_new;
    }

    // merge the 8 warp partials: sm_acc rows are padded-free (stride
    // MaxDim*4B = 2KB, 16B aligned) so float4 views stay legal
    __shared__ float sm_acc[kAttWarps][kAttMaxDim];
    __shared__ float sm_ml[kAttWarps][2];   // [warp] -> (m, l)
    if (lane == 0) {
        sm_ml[warp][0] = m;
        sm_ml[warp][1] = l;
    }
    {
        j = 0;
        for (int c = lane; c < chunks; c += 32, ++j)
            *reinterpret_cast<float4*>(&sm_acc[warp][c * 4]) = acc[j];
    }
    __syncthreads();

    // global max over the warps that actually saw keys (l > 0); len > 0
    // guarantees at least one such warp
    float m_all = -INFINITY;
    for (int w = 0; w < kAttWarps; ++w)
        if (sm_ml[w][1] > 0.0f)
            m_all = fmaxf(m_all, sm_ml[w][0]);
    float denom = 0.0f;
    for (int w = 0; w < kAttWarps; ++w)
        if (sm_ml[w][1] > 0.0f)
            denom += sm_ml[w][1] * expf(sm_ml[w][0] - m_all);

    // each lane rescales its own chunks across all warp partials
    j = 0;
    for (int c = lane; c < chunks; c += 32, ++j) {
        float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int w = 0; w < kAttWarps; ++w) {
            if (sm_ml[w][1] > 0.0f) {
                const float wgt = expf(sm_ml[w][0] - m_all);
                const float4* src =
                    reinterpret_cast<const float4*>(&sm_acc[w][c * 4]);
                s.x += src->x * wgt;
                s.y += src->y * wgt;
                s.z += src->z * wgt;
                s.w += src->w * wgt;
            }
        }
        C::st(oraw + c * 4, make_float4(s.x / denom, s.y / denom,
                                        s.z / denom, s.w / denom));
    }
}

// ---------------------------------------------------------------------------
// split path, stage 1: block per (batch, kv head, slice).
//
// Computes the online-softmax partials of ALL G q heads sharing this kv
// head over rows [s0, min(len, s0 + slice_len)) and stores them into the
// workspace: one (m, l, acc[D]) triple per (b, kv, slice, q head). The
// key row is loaded once per lane and reused across the G heads; the
// per-warp states are merged through shared memory one head at a time
// (the shared tile is reused across heads, keeping the budget at one
// warp-partial table regardless of G). Empty slices (past len) store
// l = 0 and are skipped by stage 2. G is a compile-time template
// parameter so the per-head register state stays in registers; runtime
// groups larger than 16 stay on the single-kernel path.
// ---------------------------------------------------------------------------

template <int G, typename T>
__global__ void attn_split_kernel(const T* __restrict__ q,
                                  const T* __restrict__ k,
                                  const T* __restrict__ v,
                                  const int* __restrict__ lens,
                                  float* __restrict__ ws_ml,
                                  float* __restrict__ ws_acc,
                                  int hq, int hkv, int t_seq, int dim,
                                  int slices, int slice_len) {
    using C = AttChunk<T>;
    const int slice = blockIdx.x % slices;
    const int kv = (blockIdx.x / slices) % hkv;
    const int bi = blockIdx.x / (slices * hkv);
    const int len = lens ? lens[bi] : t_seq;
    const int t0 = slice * slice_len;
    const int t1 = min(len, t0 + slice_len);

    const float scale = 1.0f / sqrtf((float)dim);
    const int chunks = dim / 4;
    const T* kp = k + (((size_t)bi * hkv + kv) * t_seq) * dim;
    const T* vp = v + (((size_t)bi * hkv + kv) * t_seq) * dim;
    const T* qp = q + ((size_t)bi * hq + (size_t)kv * G) * dim;

    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;

    // per-lane q chunks for each head of the group + running state.
    // Lanes that own no chunk (chunks < 32, e.g. D=4) keep the empty
    // online state, which the merge skips via l == 0. `nj` is the
    // per-lane chunk count; `j` below walks the same mapping.
    float4 qv[G][kAttLaneChunks];
    float4 acc[G][kAttLaneChunks];
    float m[G], l[G];
    #pragma unroll
    for (int g = 0; g < G; ++g) {
        m[g] = -INFINITY;
        l[g] = 0.0f;
    }
    int nj = 0;
    for (int c = lane; c < chunks; c += 32, ++nj)
        #pragma unroll
        for (int g = 0; g < G; ++g) {
            qv[g][nj] = C::ld(qp + (size_t)g * dim + c * 4);
            acc[g][nj] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }

    // warps stride the slice; the k/v rows are read once and reused
    // across the whole GQA group
    for (int t = t0 + warp; t < t1; t += kAttWarps) {
        const T* krow = kp + (size_t)t * dim;
        const T* vrow = vp + (size_t)t * dim;
        float4 kc[kAttLaneChunks], vc[kAttLaneChunks];
        for (int j = 0; j < nj; ++j) {
            kc[j] = C::ld(krow + (lane + (size_t)j * 32) * 4);
            vc[j] = C::ld(vrow + (lane + (size_t)j * 32) * 4);
        }
        for (int g = 0; g < G; ++g) {
            float dot = 0.0f;
            #pragma unroll
            for (int j = 0; j < kAttLaneChunks; ++j) {
                if (j >= nj) break;
                dot += qv[g][j].x * kc[j].x + qv[g][j].y * kc[j].y
                     + qv[g][j].z * kc[j].z + qv[g][j].w * kc[j].w;
            }
            #pragma unroll
            for (int off = 16; off > 0; off >>= 1)
                dot += __shfl_down_sync(0xffffffffu, dot, off);
            const float s = __shfl_sync(0xffffffffu, dot, 0) * scale;
            const float m_new = fmaxf(m[g], s);
            const float rescale = expf(m[g] - m_new);
            const float p = expf(s - m_new);
            l[g] = l[g] * rescale + p;
            #pragma unroll
            for (int j = 0; j < kAttLaneChunks; ++j) {
                if (j >= nj) break;
                acc[g][j].x = acc[g][j].x * rescale + p * vc[j].x;
                acc[g][j].y = acc[g][j].y * rescale + p * vc[j].y;
                acc[g][j].z = acc[g][j].z * rescale + p * vc[j].z;
                acc[g][j].w = acc[g][j].w * rescale + p * vc[j].w;
            }
            m[g] = m_new;
        }
    }

    // merge warp partials per head, reusing one shared table across heads
    __shared__ float sm_acc[kAttWarps][kAttMaxDim];
    __shared__ float sm_ml[kAttWarps][2];
    for (int g = 0; g < G; ++g) {
        if (lane == 0) {
            sm_ml[warp][0] = m[g];
            sm_ml[warp][1] = l[g];
        }
        {
            int j = 0;
            for (int c = lane; c < chunks; c += 32, ++j)
                *reinterpret_cast<float4*>(&sm_acc[warp][c * 4]) = acc[g][j];
        }
        __syncthreads();
        const size_t pidx =
            (((size_t)bi * hkv + kv) * slices + slice) * G + g;
        float m_all = -INFINITY;
        for (int w = 0; w < kAttWarps; ++w)
            if (sm_ml[w][1] > 0.0f)
                m_all = fmaxf(m_all, sm_ml[w][0]);
        float l_all = 0.0f;
        for (int w = 0; w < kAttWarps; ++w)
            if (sm_ml[w][1] > 0.0f)
                l_all += sm_ml[w][1] * expf(sm_ml[w][0] - m_all);
        if (threadIdx.x == 0) {
            ws_ml[pidx * 2] = m_all;       // m stays -inf for empty slices
            ws_ml[pidx * 2 + 1] = l_all;   // 0 marks "skipped" in stage 2
        }
        int j = 0;
        for (int c = lane; c < chunks; c += 32, ++j) {
            float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            for (int w = 0; w < kAttWarps; ++w) {
                if (sm_ml[w][1] > 0.0f) {
                    const float wgt = expf(sm_ml[w][0] - m_all);
                    const float4* src =
                        reinterpret_cast<const float4*>(&sm_acc[w][c * 4]);
                    s.x += src->x * wgt;
                    s.y += src->y * wgt;
                    s.z += src->z * wgt;
                    s.w += src->w * wgt;
                }
            }
            *reinterpret_cast<float4*>(&ws_acc[pidx * dim + c * 4]) = s;
        }
        __syncthreads();                   // sm reused by the next head
    }
}

// ---------------------------------------------------------------------------
// split path, stage 2: block per (batch, q head).
//
// Streams the slice partials of this q head and folds them with the same
// max-rescale rule the online softmax uses (first live partial adopted
// verbatim, later ones rescaled). All-skip (len == 0) writes zero rows.
// Every thread reads the same partial rows - L1 broadcast territory, no
// cross-thread communication needed until the final divide.
// ---------------------------------------------------------------------------

template <typename T>
__global__ void attn_reduce_kernel(const float* __restrict__ ws_ml,
                                   const float* __restrict__ ws_acc,
                                   T* __restrict__ out,
                                   int hq, int hkv, int dim,
                                   int group, int slices) {
    using C = AttChunk<T>;
    const int bi = blockIdx.x / hq;
    const int h = blockIdx.x % hq;
    const int kv = h / group;
    const int gi = h % group;
    const int chunks = dim / 4;
    const int lane = threadIdx.x & 31;

    T* oraw = out + ((size_t)bi * hq + h) * dim;

    float4 o[kAttLaneChunks];
    float m = -INFINITY, l = 0.0f;
    // per-lane partial chunks (lane owns chunk c for c = lane, lane+32,
    // ...); `j` walks the same mapping from reset to store
    int j = 0;
    for (int c = lane; c < chunks; c += 32, ++j)
        o[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    const size_t base = (((size_t)bi * hkv + kv) * slices) * group + gi;
    for (int s = 0; s < slices; ++s) {
        const size_t p = base + (size_t)s * group;
        const float ms = ws_ml[p * 2];
        const float ls = ws_ml[p * 2 + 1];
        if (ls <= 0.0f)
            continue;                      // empty slice (past len)
        const float4* pa = reinterpret_cast<const float4*>(
            &ws_acc[p * dim]);
        if (l == 0.0f) {                   // first live partial: adopt
            m = ms;
            l = ls;
            j = 0;
            for (int c = lane; c < chunks; c += 32, ++j)
                o[j] = pa[c];
            continue;
        }
        const float m_new = fmaxf(m, ms);
        const float r_old = expf(m - m_new), r_new = expf(ms - m_new);
        l = l * r_old + ls * r_new;
        j = 0;
        for (int c = lane; c < chunks; c += 32, ++j) {
            const float4 a = pa[c];
            o[j].x = o[j].x * r_old + a.x * r_new;
            o[j].y = o[j].y * r_old + a.y * r_new;
            o[j].z = o[j].z * r_old + a.z * r_new;
            o[j].w = o[j].w * r_old + a.w * r_new;
        }
        m = m_new;
    }
    if (l <= 0.0f) {                       // every slice empty: zero row
        const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int c = threadIdx.x; c < chunks; c += kAttBlock)
            C::st(oraw + c * 4, zero);
        return;
    }
    // every warp folds the same per-lane chunks (L1-broadcast reads -
    // deliberately redundant compute); only warp 0 needs to emit the
    // final stores, cutting 8x duplicated write traffic on the split
    // decode path (the values are identical across warps by
    // construction, so the extra stores were a benign same-value race)
    if (threadIdx.x < 32) {
        j = 0;
        for (int c = lane; c < chunks; c += 32, ++j)
            C::st(oraw + c * 4, make_float4(o[j].x / l, o[j].y / l,
                                            o[j].z / l, o[j].w / l));
    }
}

// ---------------------------------------------------------------------------
// paged decode kernel (v1.2): the split stage-1 walk over a BLOCK-POOL
// kv-cache. Identical online-softmax/GQA mechanics to attn_split_kernel
// (deliberately a separate kernel: the contiguous path is the shipped
// headline performer and stays untouched); the only difference is the
// row address of token t:
//
//   row(t) = pool[table[b * S + t / P] * Hkv*P + kv*P + t % P, :]
//
// The table is tiny and L1-resident; every warp iteration reads ONE
// entry (all lanes share t), and consecutive tokens within a page stay
// contiguous in memory so loads stay coalesced. Stage 2 is the same
// attn_reduce_kernel as the contiguous op (partials in the workspace
// are layout-agnostic).
// ---------------------------------------------------------------------------

template <int G, typename T>
__global__ void attn_split_paged_kernel(
    const T* __restrict__ q, const T* __restrict__ k_pool,
    const T* __restrict__ v_pool, const int* __restrict__ table,
    const int* __restrict__ lens, float* __restrict__ ws_ml,
    float* __restrict__ ws_acc, int hq, int hkv, int dim, int page,
    int tbl_stride, int slices, int slice_len) {
    using C = AttChunk<T>;
    const int slice = blockIdx.x % slices;
    const int kv = (blockIdx.x / slices) % hkv;
    const int bi = blockIdx.x / (slices * hkv);
    const int span = tbl_stride * page;
    const int len = lens ? lens[bi] : span;
    const int t0 = slice * slice_len;
    const int t1 = min(len, t0 + slice_len);

    const float scale = 1.0f / sqrtf((float)dim);
    const int chunks = dim / 4;
    const int* rowT = table + (size_t)bi * tbl_stride;
    const T* qp = q + ((size_t)bi * hq + (size_t)kv * G) * dim;

    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;

    float4 qv[G][kAttLaneChunks];
    float4 acc[G][kAttLaneChunks];
    float m[G], l[G];
    #pragma unroll
    for (int g = 0; g < G; ++g) {
        m[g] = -INFINITY;
        l[g] = 0.0f;
    }
    int nj = 0;
    for (int c = lane; c < chunks; c += 32, ++nj)
        #pragma unroll
        for (int g = 0; g < G; ++g) {
            qv[g][nj] = C::ld(qp + (size_t)g * dim + c * 4);
            acc[g][nj] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }

    for (int t = t0 + warp; t < t1; t += kAttWarps) {
        // paged row address (one table entry per warp iteration)
        const size_t base =
            ((size_t)rowT[t / page] * hkv + kv) * page + (t % page);
        const T* krow = k_pool + base * dim;
        const T* vrow = v_pool + base * dim;
        float4 kc[kAttLaneChunks], vc[kAttLaneChunks];
        for (int j = 0; j < nj; ++j) {
            kc[j] = C::ld(krow + (lane + (size_t)j * 32) * 4);
            vc[j] = C::ld(vrow + (lane + (size_t)j * 32) * 4);
        }
        for (int g = 0; g < G; ++g) {
            float dot = 0.0f;
            #pragma unroll
            for (int j = 0; j < kAttLaneChunks; ++j) {
                if (j >= nj) break;
                dot += qv[g][j].x * kc[j].x + qv[g][j].y * kc[j].y
                     + qv[g][j].z * kc[j].z + qv[g][j].w * kc[j].w;
            }
            #pragma unroll
            for (int off = 16; off > 0; off >>= 1)
                dot += __shfl_down_sync(0xffffffffu, dot, off);
            const float s = __shfl_sync(0xffffffffu, dot, 0) * scale;
            const float m_new = fmaxf(m[g], s);
            const float rescale = expf(m[g] - m_new);
            const float p = expf(s - m_new);
            l[g] = l[g] * rescale + p;
            #pragma unroll
            for (int j = 0; j < kAttLaneChunks; ++j) {
                if (j >= nj) break;
                acc[g][j].x = acc[g][j].x * rescale + p * vc[j].x;
                acc[g][j].y = acc[g][j].y * rescale + p * vc[j].y;
                acc[g][j].z = acc[g][j].z * rescale + p * vc[j].z;
                acc[g][j].w = acc[g][j].w * rescale + p * vc[j].w;
            }
            m[g] = m_new;
        }
    }

    // merge warp partials per head (same shared-memory dance as the
    // contiguous split kernel)
    __shared__ float sm_acc[kAttWarps][kAttMaxDim];
    __shared__ float sm_ml[kAttWarps][2];
    for (int g = 0; g < G; ++g) {
        if (lane == 0) {
            sm_ml[warp][0] = m[g];
            sm_ml[warp][1] = l[g];
        }
        {
            int j = 0;
            for (int c = lane; c < chunks; c += 32, ++j)
                *reinterpret_cast<float4*>(&sm_acc[warp][c * 4]) = acc[g][j];
        }
        __syncthreads();
        const size_t pidx =
            (((size_t)bi * hkv + kv) * slices + slice) * G + g;
        float m_all = -INFINITY;
        for (int w = 0; w < kAttWarps; ++w)
            if (sm_ml[w][1] > 0.0f)
                m_all = fmaxf(m_all, sm_ml[w][0]);
        float l_all = 0.0f;
        for (int w = 0; w < kAttWarps; ++w)
            if (sm_ml[w][1] > 0.0f)
                l_all += sm_ml[w][1] * expf(sm_ml[w][0] - m_all);
        if (threadIdx.x == 0) {
            ws_ml[pidx * 2] = m_all;
            ws_ml[pidx * 2 + 1] = l_all;
        }
        int j = 0;
        for (int c = lane; c < chunks; c += 32, ++j) {
            float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            for (int w = 0; w < kAttWarps; ++w) {
                if (sm_ml[w][1] > 0.0f) {
                    const float wgt = expf(sm_ml[w][0] - m_all);
                    const float4* src =
                        reinterpret_cast<const float4*>(&sm_acc[w][c * 4]);
                    s.x += src->x * wgt;
                    s.y += src->y * wgt;
                    s.z += src->z * wgt;
                    s.w += src->w * wgt;
                }
            }
            *reinterpret_cast<float4*>(&ws_acc[pidx * dim + c * 4]) = s;
        }
        __syncthreads();
    }
}

// ---------------------------------------------------------------------------
// prefill kernel: fresh-sequence attention over S query rows (the
// lightweight v0.5 prefill - no tensor cores, bandwidth-first).
//
// One block per (batch, q head, tile of QTILE query rows); K/V stream
// through KVTILE-row shared chunks so every global load is reused by
// the whole tile. The latency-critical inner dot avoids the classic
// 10-shuffle warp reduction: lanes split into RPW row groups of
// LANES_PER_ROW = 32 / RPW lanes, each lane owning an equal slice of
// the head dimension (8 float4 chunks for every supported shape), so a
// row's dot needs only log2(LANES_PER_ROW) xor-shuffles with no
// broadcast and no cross-row serialization. q slices and accumulators
// live in registers; different rows in a warp share the same k/v
// shared reads for free (broadcast).
//
//   dim <= 128: 64-row tile, 8 rows/warp,  4 lanes/row
//   dim <= 256: 32-row tile, 4 rows/warp,  8 lanes/row
//   dim <= 512: 16-row tile, 2 rows/warp, 16 lanes/row
//   dim  <  32: the dim<=128 band, with the surplus lanes of a row
//               group contributing zero (bounds-guarded loads/stores)
// Causality falls out of each row's own limit (row i stops at key i+1).
// ---------------------------------------------------------------------------

template <int QTILE, int KVTILE, int LPR, typename T>
__global__ void attn_prefill_kernel(const T* __restrict__ q,
                                    const T* __restrict__ k,
                                    const T* __restrict__ v,
                                    T* __restrict__ out,
                                    int hq, int hkv, int seq, int dim,
                                    int tiles, int causal) {
    using C = AttChunk<T>;
    constexpr int RPW = 32 / LPR;      // query rows per warp
    const int tile = blockIdx.x % tiles;
    const int h = (blockIdx.x / tiles) % hq;
    const int bi = blockIdx.x / (tiles * hq);
    const int group = hq / hkv;
    const int kv = h / group;
    const int row0 = tile * QTILE;
    const int chunks = dim / 4;        // per row
    // ceil: the last lane of a row may own a partial slice (chunk
    // counts not divisible by LPR, e.g. dim=36 -> 9 chunks over 4
    // lanes); out-of-range chunks read as zero and never store
    const int lane_chunks = (chunks + LPR - 1) / LPR;
    const float scale = 1.0f / sqrtf((float)dim);

    const T* kp = k + (((size_t)bi * hkv + kv) * seq) * dim;
    const T* vp = v + (((size_t)bi * hkv + kv) * seq) * dim;
    const T* qp = q + (((size_t)bi * hq + h) * seq) * dim;

    // dynamic shared layout: [QTILE x dim q tile][KVTILE x dim k][v]
    extern __shared__ float sm[];
    float* q_s = sm;
    float* k_s = sm + QTILE * dim;
    float* v_s = k_s + KVTILE * dim;

    // stage the query tile (padding rows past seq with zeros)
    for (int idx = threadIdx.x; idx < QTILE * chunks; idx += kAttBlock) {
        const int r = idx / chunks, c = idx % chunks;
        const int row = row0 + r;
        const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        *reinterpret_cast<float4*>(&q_s[r * dim + c * 4]) =
            (row < seq) ? C::ldc(qp, (size_t)row * chunks + c) : zero;
    }
    __syncthreads();

    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int r_in_warp = lane / LPR;              // row within the warp
    const int i_in_row = lane % LPR;               // lane's slice of dim
    const int row_w = row0 + warp * RPW;           // warp's first row

    // register-resident q slice + online accumulator for OUR row (each
    // lane holds lane_chunks float4 of one row; lanes of a row all
    // track identical (m, l) - redundant but broadcast-free)
    float4 qs[kAttPrefChunks];
    float4 acc[kAttPrefChunks];
    float m = -INFINITY, l = 0.0f;
    const int row_abs = row_w + r_in_warp;
    const bool live = row_abs < seq;
    if (live) {
        const float4 zero4 = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        const float4* qrow = reinterpret_cast<const float4*>(
            &q_s[(warp * RPW + r_in_warp) * dim]);
        // compile-time trip count keeps qs/acc in registers (a runtime
        // bound demotes the arrays to local memory)
        #pragma unroll
        for (int j = 0; j < kAttPrefChunks; ++j) {
            if (j >= lane_chunks) break;
            const int c = i_in_row + j * LPR;
            qs[j] = (c < chunks) ? qrow[c] : zero4;
            acc[j] = zero4;
        }
    }
    const int lim = causal ? row_abs + 1 : seq;

    // this block's last needed key row (rows past it are never visible)
    const int row_end = min(seq, causal ? row0 + QTILE : seq);
    for (int t0 = 0; t0 < row_end; t0 += KVTILE) {
        // stage one k/v chunk (zero-padded past seq)
        const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int idx = threadIdx.x; idx < KVTILE * chunks;
             idx += kAttBlock) {
            const int r = idx / chunks, c = idx % chunks;
            const int row = t0 + r;
            const bool klive = row < seq;
            *reinterpret_cast<float4*>(&k_s[r * dim + c * 4]) =
                klive ? C::ldc(kp, (size_t)row * chunks + c) : zero;
            *reinterpret_cast<float4*>(&v_s[r * dim + c * 4]) =
                klive ? C::ldc(vp, (size_t)row * chunks + c) : zero;
        }
        __syncthreads();

        if (live) {
            const int t_stop = min(t0 + KVTILE, lim);
            for (int tt = t0; tt < t_stop; ++tt) {
                const float4* krow = reinterpret_cast<const float4*>(
                    &k_s[(tt - t0) * dim]);
                const float4* vrow = reinterpret_cast<const float4*>(
                    &v_s[(tt - t0) * dim]);
                float dot = 0.0f;
                #pragma unroll
                for (int j = 0; j < kAttPrefChunks; ++j) {
                    if (j >= lane_chunks) break;
                    const int c = i_in_row + j * LPR;
                    if (c < chunks) {
                        const float4 kk = krow[c];
                        dot += qs[j].x * kk.x + qs[j].y * kk.y
                             + qs[j].z * kk.z + qs[j].w * kk.w;
                    }
                }
                // reduce within the row's lane group only: log2(LPR)
                // xor-shuffles, every lane keeps the total. The mask
                // must cover JUST the row's contiguous lane group -
                // rows of the same warp can have different `live`, and
                // a full-warp mask with only some lanes arriving
                // deadlocks the shuffle.
                const unsigned row_mask =
                    ((1u << LPR) - 1u) << (r_in_warp * LPR);
                if (LPR > 1) {
                    #pragma unroll
                    for (int off = LPR / 2; off > 0; off >>= 1)
                        dot += __shfl_xor_sync(row_mask, dot, off);
                }
                const float s = dot * scale;
                const float m_new = fmaxf(m, s);
                // __expf (SFU approximation, ~2 ulp): this is the hot
                // two-instruction path of the prefill kernel; the
                // parity tests' 1e-4 tolerances absorb the difference
                const float rescale = __expf(m - m_new);
                const float p = __expf(s - m_new);
                l = l * rescale + p;
                #pragma unroll
                for (int j = 0; j < kAttPrefChunks; ++j) {
                    if (j >= lane_chunks) break;
                    const int c = i_in_row + j * LPR;
                    if (c < chunks) {
                        const float4 vv = vrow[c];
                        acc[j].x = acc[j].x * rescale + p * vv.x;
                        acc[j].y = acc[j].y * rescale + p * vv.y;
                        acc[j].z = acc[j].z * rescale + p * vv.z;
                        acc[j].w = acc[j].w * rescale + p * vv.w;
                    }
                }
                m = m_new;
            }
        }
        __syncthreads();               // before restaging k/v
    }

    if (live) {
        // lim >= 1 always holds, so l > 0 (the row saw key 0)
        T* orow = out + (((size_t)bi * hq + h) * seq + (size_t)row_abs) * dim;
        #pragma unroll
        for (int j = 0; j < kAttPrefChunks; ++j) {
            if (j >= lane_chunks) break;
            const int c = i_in_row + j * LPR;
            if (c < chunks)
                C::stc(orow, c,
                       make_float4(acc[j].x / l, acc[j].y / l,
                                   acc[j].z / l, acc[j].w / l));
        }
    }
}

// ---------------------------------------------------------------------------
// tensor-core prefill (v2.4): flash-style half-precision path on
// mma.sync.aligned.m16n8k16 fragments. The v0.5 CUDA-core kernel above
// stays the f32 path and the fallback for dims the MMA cannot express;
// bf16/fp16 with dim in {32, 64, 128} land here (5.2x / 5.1x the
// CUDA-core half path on a 3060 at S=1024 D=128, bf16/fp16).
//
// Structure: one block = 128 threads = 4 warps = a 64-row query tile
// (the dim<=128 band's row count). Each warp owns 16 query rows held
// in A-fragment registers; K/V stream through padded smem rows
// (dim + 8 halves, staggering the bank groups the fragment loads hit).
// Per KV tile of 32 rows: S = Q @ K^T on tensor cores, stored to smem,
// the causal/sequence mask + online softmax (m, l, per-row alpha)
// applied cooperatively, P packed back to half precision, then
// O = O * alpha + P @ V on tensor cores. The mma fragment layouts are
// the documented PTX ones (verified element-by-element against a
// scatter probe during development): lane l = (g = l>>2, t = l&3)
// holds A/C rows g and g+8, A/B column pairs 2t and 2t+8.
//
// Numerics contract: identical to the CUDA-core kernel - scores and
// softmax in f32 (the MMA accumulates f32 from the exact stored half
// bits), __expf on the SFU path, output rounded to the storage dtype;
// parity tests keep their half-precision tolerances unchanged.
// ---------------------------------------------------------------------------

constexpr int kWmmaBlock = 128;        // 4 warps x 16 query rows
constexpr int kWmmaKv = 32;            // KV rows staged per iteration
constexpr int kWmmaRows = 64;          // query rows per block

// mma.sync m16n8k16 (bf16 or fp16 inputs, f32 accumulate): the PTX
// instruction the whole path is built on, wrapped so the dtype only
// selects the instruction string.
template <bool IS_BF16>
__device__ __forceinline__ void mma16816(float* d, const unsigned* a,
                                         const unsigned* b) {
    if constexpr (IS_BF16)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
              "r"(b[1]));
    else
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
              "r"(b[1]));
}

// float pair -> one packed half-precision register (mma input format)
template <bool IS_BF16>
__device__ __forceinline__ unsigned pack_pair(float lo, float hi) {
    if constexpr (IS_BF16) {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<unsigned*>(&h);
    } else {
        __half2 h = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<unsigned*>(&h);
    }
}

// two same-column halves from different smem rows -> one packed
// register (the V B-fragment's k direction strides rows, not columns)
__device__ __forceinline__ unsigned pack_pair_mem(const void* lo,
                                                  const void* hi) {
    const unsigned short a = *static_cast<const unsigned short*>(lo);
    const unsigned short b = *static_cast<const unsigned short*>(hi);
    return (unsigned)a | ((unsigned)b << 16);
}

template <int D, int KVTILE, bool IS_BF16, typename T>
__global__ void attn_prefill_wmma_kernel(const T* __restrict__ q,
                                         const T* __restrict__ k,
                                         const T* __restrict__ v,
                                         T* __restrict__ out, int hq,
                                         int hkv, int seq, int causal) {
    constexpr int DIM_PAD = D + 8;          // padded row stride (halves)
    constexpr int KSTEPS = D / 16;          // S-pass k-steps
    constexpr int NT_S = KVTILE / 8;        // S-pass n-tiles
    constexpr int NT_O = D / 8;             // O-pass n-tiles
    constexpr int KT_O = KVTILE / 16;       // O-pass k-steps (kv tiles)
    constexpr int S_STRIDE = KVTILE + 1;    // f32 S row stride

    const int tiles = (seq + kWmmaRows - 1) / kWmmaRows;
    const int tile = blockIdx.x % tiles;
    const int h = (blockIdx.x / tiles) % hq;
    const int bi = blockIdx.x / (tiles * hq);
    const int group = hq / hkv;
    const int kv = h / group;
    const int row0 = tile * kWmmaRows;
    const float scale = 1.0f / sqrtf((float)D);

    const T* kp = k + (((size_t)bi * hkv + kv) * seq) * D;
    const T* vp = v + (((size_t)bi * hkv + kv) * seq) * D;
    const T* qp = q + (((size_t)bi * hq + h) * seq) * D;

    extern __shared__ unsigned short wsm[];
    // layout: K [KVTILE][DIM_PAD], V [KVTILE][DIM_PAD], then per warp:
    // S f32 [16][KVTILE+1], P halves [16][KVTILE], m/l/alpha f32 [16][3]
    unsigned short* k_s = wsm;
    unsigned short* v_s = wsm + (size_t)KVTILE * DIM_PAD;
    float* s_s = reinterpret_cast<float*>(v_s + (size_t)KVTILE * DIM_PAD);
    unsigned short* p_h = reinterpret_cast<unsigned short*>(
        s_s + 4 * 16 * S_STRIDE);
    float* ml_s = reinterpret_cast<float*>(p_h + 4 * 16 * KVTILE);

    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int g = lane >> 2;                // fragment group row
    const int tig = lane & 3;               // fragment thread-in-group
    const int qwarp = warp * 16;            // this warp's first query row

    float* S = s_s + (size_t)warp * 16 * S_STRIDE;
    float* ML = ml_s + (size_t)warp * 48;   // [m 16][l 16][alpha 16]
    unsigned short* P = p_h + (size_t)warp * 16 * KVTILE;

    // stage this warp's 16 query rows into A-fragment registers; rows
    // past seq read zero (their outputs are never stored)
    unsigned qa[KSTEPS][4];
    #pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
        const int c0 = ks * 16 + tig * 2;
        #pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int row = (j & 1) ? g + 8 : g;
            const int col = c0 + ((j & 2) ? 8 : 0);
            const int arow = row0 + qwarp + row;
            unsigned short lo = 0, hi = 0;
            if (arow < seq) {
                lo = *reinterpret_cast<const unsigned short*>(
                    &qp[(size_t)arow * D + col]);
                hi = *reinterpret_cast<const unsigned short*>(
                    &qp[(size_t)arow * D + col + 1]);
            }
            qa[ks][j] = (unsigned)lo | ((unsigned)hi << 16);
        }
    }

    // zero-init the online softmax state
    for (int i = lane; i < 16; i += 32) {
        ML[i] = -INFINITY;
        ML[16 + i] = 0.0f;
    }
    __syncthreads();

    float o[NT_O][4];
    #pragma unroll
    for (int nt = 0; nt < NT_O; ++nt)
        #pragma unroll
        for (int i = 0; i < 4; ++i) o[nt][i] = 0.0f;

    const int row_end = min(seq, causal ? row0 + kWmmaRows : seq);
    for (int t0 = 0; t0 < row_end; t0 += KVTILE) {
        // stage K/V (zero-padded past seq)
        for (int idx = threadIdx.x; idx < KVTILE * (D / 2);
             idx += kWmmaBlock) {
            const int r = idx / (D / 2), cpair = idx % (D / 2);
            const int row = t0 + r;
            unsigned lo = 0, hi = 0;
            if (row < seq) {
                lo = *reinterpret_cast<const unsigned*>(
                    &kp[(size_t)row * D + cpair * 2]);
                hi = *reinterpret_cast<const unsigned*>(
                    &vp[(size_t)row * D + cpair * 2]);
            }
            *reinterpret_cast<unsigned*>(&k_s[(size_t)r * DIM_PAD +
                                              cpair * 2]) = lo;
            *reinterpret_cast<unsigned*>(&v_s[(size_t)r * DIM_PAD +
                                              cpair * 2]) = hi;
        }
        __syncthreads();

        // ---- S = Q @ K^T (tensor cores) ----
        float s[NT_S][4];
        #pragma unroll
        for (int nt = 0; nt < NT_S; ++nt)
            #pragma unroll
            for (int i = 0; i < 4; ++i) s[nt][i] = 0.0f;
        #pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
            const unsigned* a = qa[ks];
            #pragma unroll
            for (int nt = 0; nt < NT_S; ++nt) {
                unsigned b[2];
                b[0] = *reinterpret_cast<const unsigned*>(
                    &k_s[(size_t)(nt * 8 + g) * DIM_PAD + ks * 16 +
                         tig * 2]);
                b[1] = *reinterpret_cast<const unsigned*>(
                    &k_s[(size_t)(nt * 8 + g) * DIM_PAD + ks * 16 +
                         tig * 2 + 8]);
                mma16816<IS_BF16>(s[nt], a, b);
            }
        }
        // store S (scaled) with the causal/sequence mask folded in
        #pragma unroll
        for (int nt = 0; nt < NT_S; ++nt) {
            const int col = nt * 8 + tig * 2;
            S[g * S_STRIDE + col] = s[nt][0] * scale;
            S[g * S_STRIDE + col + 1] = s[nt][1] * scale;
            S[(g + 8) * S_STRIDE + col] = s[nt][2] * scale;
            S[(g + 8) * S_STRIDE + col + 1] = s[nt][3] * scale;
        }
        __syncwarp();

        // ---- online softmax + P (v2.5 lane-parallel restructure) ----
        // 16 rows processed SIMULTANEOUSLY, 2 lanes per row (16 cols
        // each): two xor-shfl rounds per tile instead of the v2.4
        // loop's 16 rows x two 5-round warp reductions - the softmax
        // was the kernel's critical path (1.63x end-to-end on a 3060;
        // cp.async double-buffered staging measured SLOWER than the
        // register path and stays out - see the changelog).
        // Rows past seq produce NaN state (alpha = expf(-inf-inf)) but
        // are never stored - the epilogue guards on row < seq.
        const int t_stop = min(t0 + KVTILE, seq);
        constexpr int COLS_PER_LANE = KVTILE / 2;
        const int r = lane >> 1;            // this lane's row 0..15
        const int half = lane & 1;          // column half
        const int row_abs = row0 + qwarp + r;
        const int lim = causal ? row_abs + 1 : seq;
        float mpart = -INFINITY;
        #pragma unroll
        for (int i = 0; i < COLS_PER_LANE; ++i) {
            const int c = half * COLS_PER_LANE + i;
            const int key = t0 + c;
            float val = S[r * S_STRIDE + c];
            if (key >= t_stop || key >= lim) val = -INFINITY;
            S[r * S_STRIDE + c] = val;
            mpart = fmaxf(mpart, val);
        }
        // combine the row's two lane halves (1 xor round each way)
        const float mrow = fmaxf(mpart, __shfl_xor_sync(0xffffffffu,
                                                        mpart, 1));
        // only the state-writing lane (2r, the half==0 lane of row r)
        // touches ML; the shfl broadcasts to its partner - same-lane
        // read/write ordering, the racecheck-clean pattern
        const float m_old = __shfl_sync(
            0xffffffffu, (half == 0) ? ML[r] : 0.0f, r * 2);
        const float m_new = fmaxf(m_old, mrow);
        const float alpha = __expf(m_old - m_new);
        float lpart = 0.0f;
        #pragma unroll
        for (int i = 0; i < COLS_PER_LANE; ++i) {
            const int c = half * COLS_PER_LANE + i;
            const float val = S[r * S_STRIDE + c];
            const float p =
                (val == -INFINITY) ? 0.0f : __expf(val - m_new);
            lpart += p;
            S[r * S_STRIDE + c] = p;
        }
        const float lrow = lpart + __shfl_xor_sync(0xffffffffu, lpart, 1);
        if (half == 0) {                    // one writer per row
            ML[r] = m_new;
            ML[16 + r] = ML[16 + r] * alpha + lrow;
            ML[32 + r] = alpha;
        }
        __syncwarp();

        // pack P and rescale O in the same lane layout: each lane owns
        // its 16 consecutive columns of one row. The barrier after the
        // pack is REQUIRED: the mma A-fragments below read P rows g
        // and g+8 across the whole warp - writes by the row's two
        // lanes must be visible first (the 2.5 restructure initially
        // dropped this barrier; racecheck caught it before release).
        #pragma unroll
        for (int i = 0; i < COLS_PER_LANE / 2; ++i) {
            const int c0 = half * COLS_PER_LANE + i * 2;
            *reinterpret_cast<unsigned*>(&P[r * KVTILE + c0]) =
                pack_pair<IS_BF16>(S[r * S_STRIDE + c0],
                                   S[r * S_STRIDE + c0 + 1]);
        }
        __syncwarp();

        // ---- O = O * alpha + P @ V (tensor cores) ----
        const float alpha_g = ML[32 + g];
        const float alpha_g8 = ML[32 + g + 8];
        #pragma unroll
        for (int nt = 0; nt < NT_O; ++nt) {
            o[nt][0] *= alpha_g;
            o[nt][1] *= alpha_g;
            o[nt][2] *= alpha_g8;
            o[nt][3] *= alpha_g8;
        }

        #pragma unroll
        for (int kt = 0; kt < KT_O; ++kt) {
            unsigned a[4];
            a[0] = *reinterpret_cast<const unsigned*>(
                &P[g * KVTILE + kt * 16 + tig * 2]);
            a[1] = *reinterpret_cast<const unsigned*>(
                &P[(g + 8) * KVTILE + kt * 16 + tig * 2]);
            a[2] = *reinterpret_cast<const unsigned*>(
                &P[g * KVTILE + kt * 16 + tig * 2 + 8]);
            a[3] = *reinterpret_cast<const unsigned*>(
                &P[(g + 8) * KVTILE + kt * 16 + tig * 2 + 8]);
            #pragma unroll
            for (int nt = 0; nt < NT_O; ++nt) {
                const int ncol = nt * 8 + g;
                unsigned b[2];
                b[0] = pack_pair_mem(
                    &v_s[(size_t)(kt * 16 + tig * 2) * DIM_PAD + ncol],
                    &v_s[(size_t)(kt * 16 + tig * 2 + 1) * DIM_PAD +
                         ncol]);
                b[1] = pack_pair_mem(
                    &v_s[(size_t)(kt * 16 + tig * 2 + 8) * DIM_PAD +
                         ncol],
                    &v_s[(size_t)(kt * 16 + tig * 2 + 9) * DIM_PAD +
                         ncol]);
                mma16816<IS_BF16>(o[nt], a, b);
            }
        }
        __syncthreads();                   // before restaging K/V
    }

    // ---- epilogue: divide by l, round to the storage dtype ----
    const float li_g = 1.0f / ML[16 + g];
    const float li_g8 = 1.0f / ML[16 + g + 8];
    #pragma unroll
    for (int nt = 0; nt < NT_O; ++nt) {
        const int col = nt * 8 + tig * 2;
        {
            const int row = row0 + qwarp + g;
            if (row < seq) {
                T* dst = out + (((size_t)bi * hq + h) * seq + row) * D;
                dst[col] = (T)(o[nt][0] * li_g);
                dst[col + 1] = (T)(o[nt][1] * li_g);
            }
        }
        {
            const int row = row0 + qwarp + g + 8;
            if (row < seq) {
                T* dst = out + (((size_t)bi * hq + h) * seq + row) * D;
                dst[col] = (T)(o[nt][2] * li_g8);
                dst[col + 1] = (T)(o[nt][3] * li_g8);
            }
        }
    }
}

// WMMA prefill dispatch: shared by the bf16/fp16 entry points. The
// shared-memory formula mirrors the kernel's layout constants.
template <typename T, bool IS_BF16>
void attention_prefill_wmma(const T* q, const T* k, const T* v, T* out,
                            int batch, int hq, int hkv, int seq, int dim,
                            bool causal, cudaStream_t cs) {
    const int tiles = (seq + kWmmaRows - 1) / kWmmaRows;
    dim3 grid((unsigned)(batch * hq * tiles));
    // derived from the kernel's layout constants (NOT magic numbers):
    // K/V staged tiles, then per warp: S [16][KVTILE+1] f32,
    // P [16][KVTILE] halves, m/l/alpha [16][3] f32
    constexpr int kWWarps = kWmmaBlock / 32;          // 4
    constexpr int kWRowsPerWarp = kWmmaRows / kWWarps;  // 16
    const size_t smem = (size_t)2 * kWmmaKv * (dim + 8) * 2 +
        (size_t)kWWarps *
        ((size_t)kWRowsPerWarp * (kWmmaKv + 1) * 4 +
         (size_t)kWRowsPerWarp * kWmmaKv * 2 +
         (size_t)kWRowsPerWarp * 3 * 4);
    switch (dim) {
        case 32:
            attn_prefill_wmma_kernel<32, kWmmaKv, IS_BF16, T>
                <<<grid, kWmmaBlock, smem, cs>>>(q, k, v, out, hq, hkv,
                                                 seq, causal ? 1 : 0);
            break;
        case 64:
            attn_prefill_wmma_kernel<64, kWmmaKv, IS_BF16, T>
                <<<grid, kWmmaBlock, smem, cs>>>(q, k, v, out, hq, hkv,
                                                 seq, causal ? 1 : 0);
            break;
        case 128:
            attn_prefill_wmma_kernel<128, kWmmaKv, IS_BF16, T>
                <<<grid, kWmmaBlock, smem, cs>>>(q, k, v, out, hq, hkv,
                                                 seq, causal ? 1 : 0);
            break;
    }
    check_launch("attention prefill wmma launch");
}

// ---------------------------------------------------------------------------
// per-shape workspace cache for the split path (process lifetime, like
// the selection pipeline's scratch). Allocations happen OUTSIDE stream
// captures; a first call that races an active capture falls back to the
// single-kernel path instead of allocating mid-capture.
// ---------------------------------------------------------------------------

struct AttWs {
    float* ml;
    float* acc;
};

using AttWsKey = std::tuple<int, int, int, int>;  // (batch*kv, slices, group, dim)

std::mutex& att_ws_mutex() {
    static std::mutex m;
    return m;
}
std::map<AttWsKey, AttWs>& att_ws_cache() {
    static std::map<AttWsKey, AttWs> c;
    return c;
}

// Slice-count heuristic: aim for ~4 waves of split blocks, never slice
// spans below kAttMinSlice and never beyond kAttMaxSlices.
int att_choose_slices(int batch, int hkv, int t_seq, int sm_count) {
    if (t_seq < 2 * kAttMinSlice)
        return 1;                          // too short to be worth it
    const int target = std::max(1, (4 * sm_count) / std::max(1, batch * hkv));
    if (target <= 1)
        return 1;                          // the naive grid is already full
    const int slice_len = std::max(kAttMinSlice, (t_seq + target - 1) / target);
    const int slices = (t_seq + slice_len - 1) / slice_len;
    return std::min(slices, kAttMaxSlices);
}

// fallback SM count when the device query fails (between the shipped
// RTX 3060's 28 and the 5060 Ti's 36 - only skews the slice heuristic)
constexpr int kDefaultSMCount = 28;

int sm_multi_processor_count() {
    static int cached = [] {
        int dev = 0, n = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev)
                != cudaSuccess) {
            cudaGetLastError();
            return kDefaultSMCount;
        }
        return n;
    }();
    return cached;
}

} // namespace

// ---------------------------------------------------------------------------
// CPU reference: plain two-pass softmax attention, float32 throughout
// (same expf as the kernel; only summation order differs)
// ---------------------------------------------------------------------------

std::vector<float> attention_decode_cpu(const std::vector<float>& q,
                                        const std::vector<float>& k,
                                        const std::vector<float>& v,
                                        const std::vector<int>* lens,
                                        int batch, int hq, int hkv,
                                        int t_seq, int dim) {
    attention_check(batch, hq, hkv, t_seq, dim);
    if (q.size() < (size_t)batch * hq * dim ||
        k.size() < (size_t)batch * hkv * t_seq * dim ||
        v.size() < (size_t)batch * hkv * t_seq * dim)
        throw std::invalid_argument("attention operand size mismatch");
    if (lens && lens->size() < (size_t)batch)
        throw std::invalid_argument("lens must have batch entries");
    if (lens) {
        for (int i = 0; i < batch; ++i)
            if ((*lens)[i] < 0 || (*lens)[i] > t_seq)
                throw std::invalid_argument(
                    "lens entries must be within [0, cache rows]");
    }

    const int group = hq / hkv;
    const float scale = 1.0f / sqrtf((float)dim);
    std::vector<float> out((size_t)batch * hq * dim, 0.0f);
    std::vector<float> scores(t_seq > 0 ? t_seq : 1);
    for (int bi = 0; bi < batch; ++bi) {
        const int len = lens ? (*lens)[bi] : t_seq;
        for (int h = 0; h < hq; ++h) {
            if (len == 0)
                continue;              // zero row convention (out is zeroed)
            const int kv = h / group;
            const float* qp = q.data() + ((size_t)bi * hq + h) * dim;
            const float* kp = k.data() +
                (((size_t)bi * hkv + kv) * t_seq) * dim;
            const float* vp = v.data() +
                (((size_t)bi * hkv + kv) * t_seq) * dim;
            float m = -INFINITY;
            for (int t = 0; t < len; ++t) {
                float dot = 0.0f;
                for (int d = 0; d < dim; ++d)
                    dot += qp[d] * kp[(size_t)t * dim + d];
                scores[t] = dot * scale;
                m = fmaxf(m, scores[t]);
            }
            float l = 0.0f;
            for (int t = 0; t < len; ++t)
                l += expf(scores[t] - m);
            float* op = out.data() + ((size_t)bi * hq + h) * dim;
            for (int t = 0; t < len; ++t) {
                const float p = expf(scores[t] - m) / l;
                for (int d = 0; d < dim; ++d)
                    op[d] += p * vp[(size_t)t * dim + d];
            }
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// paged decode CPU reference (v1.2): the same two-pass softmax walk with
// paged row addressing. Host-side, so the block-table VALUES are validated
// here (the GPU paths trust them - a device table is not host-readable
// without a sync; same trust boundary as data_ptr).
// ---------------------------------------------------------------------------

std::vector<float> attention_decode_paged_cpu(
    const std::vector<float>& q, const std::vector<float>& k_pool,
    const std::vector<float>& v_pool, const std::vector<int>& table,
    const std::vector<int>* lens, int batch, int q_heads, int kv_heads,
    int page, int tbl_width, int num_blocks, int dim) {
    attention_check(batch, q_heads, kv_heads, tbl_width * page, dim);
    if (page < 1)
        throw std::invalid_argument("page size must be >= 1");
    if (q.size() < (size_t)batch * q_heads * dim ||
        k_pool.size() < (size_t)num_blocks * kv_heads * page * dim ||
        v_pool.size() < (size_t)num_blocks * kv_heads * page * dim)
        throw std::invalid_argument("attention operand size mismatch");
    if (table.size() < (size_t)batch * tbl_width)
        throw std::invalid_argument("block table must be [batch, tbl_width]");
    if (lens && lens->size() < (size_t)batch)
        throw std::invalid_argument("lens must have batch entries");

    const int span = tbl_width * page;
    if (lens)
        for (int i = 0; i < batch; ++i)
            if ((*lens)[i] < 0 || (*lens)[i] > span)
                throw std::invalid_argument(
                    "lens entries must be within [0, table width * page]");
    for (int bi = 0; bi < batch; ++bi) {
        const int used = (lens ? (*lens)[bi] : span);
        const int pages = (used + page - 1) / page;
        for (int s = 0; s < pages; ++s) {
            const int blk = table[(size_t)bi * tbl_width + s];
            if (blk < 0 || blk >= num_blocks)
                throw std::invalid_argument(
                    "block table entries must be valid pool block ids");
        }
    }

    const int group = q_heads / kv_heads;
    const float scale = 1.0f / sqrtf((float)dim);
    std::vector<float> out((size_t)batch * q_heads * dim, 0.0f);
    std::vector<float> scores(span > 0 ? span : 1);
    for (int bi = 0; bi < batch; ++bi) {
        const int len = lens ? (*lens)[bi] : span;
        for (int h = 0; h < q_heads; ++h) {
            if (len == 0)
                continue;              // zero row convention
            const int kv = h / group;
            const float* qp = q.data() + ((size_t)bi * q_heads + h) * dim;
            const int* rowT = table.data() + (size_t)bi * tbl_width;
            float m = -INFINITY;
            for (int t = 0; t < len; ++t) {
                const size_t base =
                    ((size_t)rowT[t / page] * kv_heads + kv) * page
                    + (t % page);
                const float* kp = k_pool.data() + base * dim;
                float dot = 0.0f;
                for (int d = 0; d < dim; ++d)
                    dot += qp[d] * kp[d];
                scores[t] = dot * scale;
                m = fmaxf(m, scores[t]);
            }
            float l = 0.0f;
            for (int t = 0; t < len; ++t)
                l += expf(scores[t] - m);
            float* op = out.data() + ((size_t)bi * q_heads + h) * dim;
            for (int t = 0; t < len; ++t) {
                const size_t base =
                    ((size_t)rowT[t / page] * kv_heads + kv) * page
                    + (t % page);
                const float* vp = v_pool.data() + base * dim;
                const float p = expf(scores[t] - m) / l;
                for (int d = 0; d < dim; ++d)
                    op[d] += p * vp[d];
            }
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// launcher: single-kernel path for short caches / saturated grids /
// unusual group sizes, flash-decoding split path (stage1 partials +
// stage2 reduce) for long caches. Stream-ordered and graph-capturable on
// both paths (the workspace is allocated outside captures on first use).
// Templated on the storage dtype; float32 / bfloat16 / float16 entry
// points share everything but the kernel instantiation (the workspace is
// float32 on every path, so its cache is shared across dtypes).
// ---------------------------------------------------------------------------

template <typename T>
void attention_decode_launch_t(const T* q, const T* k, const T* v,
                               const int* lens, T* out,
                               int batch, int hq, int hkv, int t_seq,
                               int dim, std::uintptr_t stream) {
    attention_check(batch, hq, hkv, t_seq, dim);
    if (batch == 0)
        return;                        // nothing to compute
    cudaStream_t cs = (cudaStream_t)stream;
    const int group = hq / hkv;

    // the split kernels are templated over the GQA group width; unusual
    // divisors (3, 5, 6, ...) stay on the single-kernel path
    const bool splittable = group == 1 || group == 2 || group == 4 ||
                            group == 8 || group == 16;
    int slices = 1;
    if (splittable)
        slices = att_choose_slices(batch, hkv, t_seq,
                                   sm_multi_processor_count());
    if (slices <= 1) {
        attn_decode_kernel<T><<<batch * hq, kAttBlock, 0, cs>>>(
            q, k, v, lens, out, hq, hkv, t_seq, dim);
        check_launch("attention decode kernel launch");
        return;
    }

    // split path: find (or allocate, outside captures) the workspace
    const AttWsKey key(batch * hkv, slices, group, dim);
    AttWs ws{nullptr, nullptr};
    {
        std::lock_guard<std::mutex> lock(att_ws_mutex());
        auto it = att_ws_cache().find(key);
        if (it != att_ws_cache().end()) {
            ws = it->second;
        } else if (stream_is_capturing(cs)) {
            // first use raced an active capture: the single-kernel path
            // needs no workspace, use it for THIS launch (and for the
            // whole capture); later uncaptured calls populate the cache
            attn_decode_kernel<T><<<batch * hq, kAttBlock, 0, cs>>>(
                q, k, v, lens, out, hq, hkv, t_seq, dim);
            check_launch("attention decode kernel launch");
            return;
        } else {
            const size_t npart = (size_t)batch * hkv * slices * group;
            float* ml = nullptr;
            float* acc = nullptr;
            if (cudaMalloc(&ml, npart * 2 * sizeof(float)) != cudaSuccess ||
                cudaMalloc(&acc, npart * (size_t)dim * sizeof(float))
                    != cudaSuccess) {
                cudaGetLastError();
                // allocation failed: fall back, stay correct
                attn_decode_kernel<T><<<batch * hq, kAttBlock, 0, cs>>>(
                    q, k, v, lens, out, hq, hkv, t_seq, dim);
                check_launch("attention decode kernel launch");
                return;
            }
            ws = AttWs{ml, acc};
            att_ws_cache().emplace(key, ws);
        }
    }

    const int grid1 = batch * hkv * slices;
    const int slice_len = (t_seq + slices - 1) / slices;
    if (group == 1)
        attn_split_kernel<1, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k, v, lens, ws.ml, ws.acc, hq, hkv, t_seq, dim,
            slices, slice_len);
    else if (group == 2)
        attn_split_kernel<2, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k, v, lens, ws.ml, ws.acc, hq, hkv, t_seq, dim,
            slices, slice_len);
    else if (group == 4)
        attn_split_kernel<4, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k, v, lens, ws.ml, ws.acc, hq, hkv, t_seq, dim,
            slices, slice_len);
    else if (group == 8)
        attn_split_kernel<8, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k, v, lens, ws.ml, ws.acc, hq, hkv, t_seq, dim,
            slices, slice_len);
    else                          // splittable already pinned group == 16
        attn_split_kernel<16, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k, v, lens, ws.ml, ws.acc, hq, hkv, t_seq, dim,
            slices, slice_len);
    check_launch("attention split kernel launch");
    attn_reduce_kernel<T><<<batch * hq, kAttBlock, 0, cs>>>(
        ws.ml, ws.acc, out, hq, hkv, dim, group, slices);
    check_launch("attention reduce kernel launch");
}

void attention_decode_launch(const float* q, const float* k, const float* v,
                             const int* lens, float* out,
                             int batch, int hq, int hkv, int t_seq, int dim,
                             std::uintptr_t stream) {
    attention_decode_launch_t(q, k, v, lens, out, batch, hq, hkv,
                              t_seq, dim, stream);
}

void attention_decode_launch_bf16(const void* q, const void* k,
                                  const void* v, const int* lens, void* out,
                                  int batch, int hq, int hkv, int t_seq,
                                  int dim, std::uintptr_t stream) {
    attention_decode_launch_t(static_cast<const __nv_bfloat16*>(q),
                              static_cast<const __nv_bfloat16*>(k),
                              static_cast<const __nv_bfloat16*>(v),
                              lens, static_cast<__nv_bfloat16*>(out),
                              batch, hq, hkv, t_seq, dim, stream);
}

void attention_decode_launch_fp16(const void* q, const void* k,
                                  const void* v, const int* lens, void* out,
                                  int batch, int hq, int hkv, int t_seq,
                                  int dim, std::uintptr_t stream) {
    attention_decode_launch_t(static_cast<const __half*>(q),
                              static_cast<const __half*>(k),
                              static_cast<const __half*>(v),
                              lens, static_cast<__half*>(out),
                              batch, hq, hkv, t_seq, dim, stream);
}

// ---------------------------------------------------------------------------
// prefill CPU reference: masked two-pass softmax attention
// ---------------------------------------------------------------------------

std::vector<float> attention_prefill_cpu(const std::vector<float>& q,
                                         const std::vector<float>& k,
                                         const std::vector<float>& v,
                                         int batch, int hq, int hkv,
                                         int seq, int dim, bool causal) {
    attention_check(batch, hq, hkv, seq, dim);
    const size_t qn = (size_t)batch * hq * seq * dim;
    const size_t kvn = (size_t)batch * hkv * seq * dim;
    if (q.size() < qn || k.size() < kvn || v.size() < kvn)
        throw std::invalid_argument("attention operand size mismatch");
    const int group = hq / hkv;
    const float scale = 1.0f / sqrtf((float)dim);
    std::vector<float> out(qn, 0.0f);
    std::vector<float> scores(seq > 0 ? seq : 1);
    for (int bi = 0; bi < batch; ++bi)
        for (int h = 0; h < hq; ++h) {
            const int kv = h / group;
            const float* qp = q.data() +
                (((size_t)bi * hq + h) * seq) * dim;
            const float* kp = k.data() +
                (((size_t)bi * hkv + kv) * seq) * dim;
            const float* vp = v.data() +
                (((size_t)bi * hkv + kv) * seq) * dim;
            for (int i = 0; i < seq; ++i) {
                const int lim = causal ? i + 1 : seq;
                const float* qr = qp + (size_t)i * dim;
                float m = -INFINITY;
                for (int t = 0; t < lim; ++t) {
                    float dot = 0.0f;
                    for (int d = 0; d < dim; ++d)
                        dot += qr[d] * kp[(size_t)t * dim + d];
                    scores[t] = dot * scale;
                    m = fmaxf(m, scores[t]);
                }
                float l = 0.0f;
                for (int t = 0; t < lim; ++t)
                    l += expf(scores[t] - m);
                float* op = out.data() +
                    (((size_t)bi * hq + h) * seq + i) * dim;
                for (int t = 0; t < lim; ++t) {
                    const float p = expf(scores[t] - m) / l;
                    for (int d = 0; d < dim; ++d)
                        op[d] += p * vp[(size_t)t * dim + d];
                }
            }
        }
    return out;
}

// ---------------------------------------------------------------------------
// prefill launcher: one block per (batch, q head, query-row tile) with the
// tile shape picked by head dimension (64/32/16 rows - see the kernel
// comment); stream-ordered, no workspace, CUDA-graph capturable as-is.
// float32 / bfloat16 / float16 entry points share the tile heuristics and
// differ only in the kernel instantiation (staging shared memory stays
// float32).
// ---------------------------------------------------------------------------

template <typename T>
void attention_prefill_launch_t(const T* q, const T* k, const T* v, T* out,
                                int batch, int hq, int hkv, int seq, int dim,
                                bool causal, std::uintptr_t stream) {
    attention_check(batch, hq, hkv, seq, dim);
    if (batch == 0 || seq == 0)
        return;                        // nothing to compute
    cudaStream_t cs = (cudaStream_t)stream;
    // v2.4: half-precision prefill rides tensor cores for the common
    // head sizes (mma.sync m16n8k16; 5.2x the CUDA-core half path on a
    // 3060 at S=1024 D=128 bf16). Other dims fall through to the
    // bandwidth-first kernel below, which also remains the f32 path.
    if constexpr (!std::is_same_v<T, float>) {
        // the exact instantiated set - NOT dim % 16 == 0: the helper's
        // switch maps anything else to the D=128 template with runtime
        // row widths it cannot honor (2.4.1 fix; dims 48/80/96/112
        // previously reached it and read/wrote out of bounds)
        if (dim == 32 || dim == 64 || dim == 128) {
            attention_prefill_wmma<T, std::is_same_v<T, __nv_bfloat16>>(
                q, k, v, out, batch, hq, hkv, seq, dim, causal, cs);
            return;
        }
    }
    // Tile shape by head size: bigger tiles for smaller heads. The old
    // dim<32 warp-per-row fallback kernel is GONE (v1.1): the tiled
    // kernel handles tiny heads correctly through its zero-padded
    // staging and per-lane bounds guards, in every storage dtype - the
    // dedicated fallback miscompiled under dtype templating and bought
    // nothing but a second code path. One table feeds the smem sizing,
    // the dispatch and the template instantiations, so they cannot
    // drift apart: {qtile, kvtile, lanes-per-row} per dim band.
    static constexpr int kPrefBands[3][3] = {
        {64, 16, 4},    // dim <= 128
        {32, 8, 8},     // dim <= 256
        {16, 4, 16},    // dim <= 512
    };
    const int band = (dim <= 128) ? 0 : (dim <= 256) ? 1 : 2;
    const int qtile = kPrefBands[band][0];
    const int kvtile = kPrefBands[band][1];
    const int smem = (qtile + 2 * kvtile) * dim * (int)sizeof(float);
    const int tiles = (seq + qtile - 1) / qtile;
    dim3 grid((unsigned)(batch * hq * tiles));
    if (band == 0)
        attn_prefill_kernel<kPrefBands[0][0], kPrefBands[0][1],
                            kPrefBands[0][2], T>
            <<<grid, kAttBlock, smem, cs>>>(
                q, k, v, out, hq, hkv, seq, dim, tiles, causal ? 1 : 0);
    else if (band == 1)
        attn_prefill_kernel<kPrefBands[1][0], kPrefBands[1][1],
                            kPrefBands[1][2], T>
            <<<grid, kAttBlock, smem, cs>>>(
                q, k, v, out, hq, hkv, seq, dim, tiles, causal ? 1 : 0);
    else
        attn_prefill_kernel<kPrefBands[2][0], kPrefBands[2][1],
                            kPrefBands[2][2], T>
            <<<grid, kAttBlock, smem, cs>>>(
                q, k, v, out, hq, hkv, seq, dim, tiles, causal ? 1 : 0);
    check_launch("attention prefill kernel launch");
}

void attention_prefill_launch(const float* q, const float* k,
                              const float* v, float* out,
                              int batch, int hq, int hkv, int seq, int dim,
                              bool causal, std::uintptr_t stream) {
    attention_prefill_launch_t(q, k, v, out, batch, hq, hkv, seq, dim,
                               causal, stream);
}

void attention_prefill_launch_bf16(const void* q, const void* k,
                                   const void* v, void* out,
                                   int batch, int hq, int hkv, int seq,
                                   int dim, bool causal,
                                   std::uintptr_t stream) {
    attention_prefill_launch_t(static_cast<const __nv_bfloat16*>(q),
                               static_cast<const __nv_bfloat16*>(k),
                               static_cast<const __nv_bfloat16*>(v),
                               static_cast<__nv_bfloat16*>(out),
                               batch, hq, hkv, seq, dim, causal, stream);
}

void attention_prefill_launch_fp16(const void* q, const void* k,
                                   const void* v, void* out,
                                   int batch, int hq, int hkv, int seq,
                                   int dim, bool causal,
                                   std::uintptr_t stream) {
    attention_prefill_launch_t(static_cast<const __half*>(q),
                               static_cast<const __half*>(k),
                               static_cast<const __half*>(v),
                               static_cast<__half*>(out),
                               batch, hq, hkv, seq, dim, causal, stream);
}

// ---------------------------------------------------------------------------
// kv-cache append (v1.2 paged, v1.3 contiguous): scatter ONE fresh
// token's k/v rows per sequence - the cache-write side of the decode
// loop (the scheduler owns the block table; this writes data into
// already-mapped blocks at position lens[b]). Grid (B, chunks): every
// thread copies one 4-element chunk of one head's row. The two cache
// layouts differ ONLY in the destination-row mapping, so one kernel
// template carries both: PAGED resolves the row through the block
// table (token t -> pool[table[b, t / page], t % page]), the
// contiguous variant writes straight to (b * Hkv + h) * T + lens[b]
// (`rows` is the page size / cache row count respectively).
// ---------------------------------------------------------------------------
template <bool PAGED, typename T>
__global__ void kv_append_kernel(const T* __restrict__ k_new,
                                 const T* __restrict__ v_new,
                                 const int* __restrict__ table,
                                 const int* __restrict__ lens,
                                 T* __restrict__ k_dst,
                                 T* __restrict__ v_dst,
                                 int hkv, int dim, int rows,
                                 int tbl_stride) {
    using C = AttChunk<T>;
    const int bi = blockIdx.x;
    const int chunks = hkv * (dim / 4);
    const int idx = blockIdx.y * blockDim.x + threadIdx.x;
    if (idx >= chunks) return;
    const int pos = lens[bi];
    const int h = idx / (dim / 4);
    const int c = idx % (dim / 4);
    size_t dst;
    if constexpr (PAGED) {
        const int blk = table[(size_t)bi * tbl_stride + pos / rows];
        dst = ((size_t)blk * hkv + h) * rows + pos % rows;
    } else {
        dst = ((size_t)bi * hkv + h) * rows + pos;
    }
    // source row base is the fresh token's (batch, head) row - both
    // sides chunk-indexed by c
    const size_t src = (size_t)bi * hkv + h;
    C::stc(k_dst + dst * dim, c, C::ldc(k_new + src * dim, c));
    C::stc(v_dst + dst * dim, c, C::ldc(v_new + src * dim, c));
}

// ---------------------------------------------------------------------------
// paged decode launcher (v1.2): always the split path (stage 1 paged walk
// + the shared stage-2 reduce). The contiguous op's single-kernel path has
// no paged twin - short sequences simply run one slice. The workspace is
// the same per-shape float32 cache the contiguous split path uses.
// ---------------------------------------------------------------------------

template <typename T>
void attention_decode_paged_launch_t(const T* q, const T* k_pool,
                                     const T* v_pool, const int* table,
                                     const int* lens, T* out,
                                     int batch, int hq, int hkv, int page,
                                     int tbl_width, int dim,
                                     std::uintptr_t stream) {
    // t_seq spans table_width * pages; computed in 64-bit and bounded
    // so an absurd (tbl_width, page) pair overflows into a clear
    // rejection instead of undefined behavior before the check
    const long long t_seq_wide = (long long)tbl_width * page;
    if (t_seq_wide > (1LL << 30))
        throw std::invalid_argument("table capacity too large");
    attention_check(batch, hq, hkv, (int)t_seq_wide, dim);
    if (page < 1)
        throw std::invalid_argument("page size must be >= 1");
    const int group = hq / hkv;
    if (!(group == 1 || group == 2 || group == 4 || group == 8 ||
          group == 16))
        throw std::invalid_argument(
            "paged decode supports GQA group sizes 1/2/4/8/16 "
            "(use the contiguous op for other divisors)");
    if (batch == 0)
        return;                        // nothing to compute
    cudaStream_t cs = (cudaStream_t)stream;

    // slice heuristics on the table capacity (host-known, like the
    // contiguous launcher's use of the cache depth)
    const int span = tbl_width * page;
    const int slices = att_choose_slices(batch, hkv, span,
                                         sm_multi_processor_count());

    const AttWsKey key(batch * hkv, slices, group, dim);
    AttWs ws{nullptr, nullptr};
    {
        std::lock_guard<std::mutex> lock(att_ws_mutex());
        auto it = att_ws_cache().find(key);
        if (it != att_ws_cache().end()) {
            ws = it->second;
        } else if (stream_is_capturing(cs)) {
            // no allocation-free fallback exists for the paged path
            throw std::runtime_error(
                "paged decode workspace must be allocated outside a CUDA "
                "graph capture - warm the shape up once before capturing");
        } else {
            const size_t npart = (size_t)batch * hkv * slices * group;
            float* ml = nullptr;
            float* acc = nullptr;
            if (cudaMalloc(&ml, npart * 2 * sizeof(float)) != cudaSuccess ||
                cudaMalloc(&acc, npart * (size_t)dim * sizeof(float))
                    != cudaSuccess) {
                cudaGetLastError();
                throw std::runtime_error(
                    "paged decode workspace allocation failed");
            }
            ws = AttWs{ml, acc};
            att_ws_cache().emplace(key, ws);
        }
    }

    const int grid1 = batch * hkv * slices;
    const int slice_len = (span + slices - 1) / slices;
    if (group == 1)
        attn_split_paged_kernel<1, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k_pool, v_pool, table, lens, ws.ml, ws.acc, hq, hkv, dim,
            page, tbl_width, slices, slice_len);
    else if (group == 2)
        attn_split_paged_kernel<2, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k_pool, v_pool, table, lens, ws.ml, ws.acc, hq, hkv, dim,
            page, tbl_width, slices, slice_len);
    else if (group == 4)
        attn_split_paged_kernel<4, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k_pool, v_pool, table, lens, ws.ml, ws.acc, hq, hkv, dim,
            page, tbl_width, slices, slice_len);
    else if (group == 8)
        attn_split_paged_kernel<8, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k_pool, v_pool, table, lens, ws.ml, ws.acc, hq, hkv, dim,
            page, tbl_width, slices, slice_len);
    else
        attn_split_paged_kernel<16, T><<<grid1, kAttBlock, 0, cs>>>(
            q, k_pool, v_pool, table, lens, ws.ml, ws.acc, hq, hkv, dim,
            page, tbl_width, slices, slice_len);
    check_launch("attention split paged kernel launch");
    attn_reduce_kernel<T><<<batch * hq, kAttBlock, 0, cs>>>(
        ws.ml, ws.acc, out, hq, hkv, dim, group, slices);
    check_launch("attention reduce kernel launch");
}

void attention_decode_paged_launch(const float* q, const float* k_pool,
                                   const float* v_pool, const int* table,
                                   const int* lens, float* out,
                                   int batch, int hq, int hkv, int page,
                                   int tbl_width, int dim,
                                   std::uintptr_t stream) {
    attention_decode_paged_launch_t(q, k_pool, v_pool, table, lens, out,
                                    batch, hq, hkv, page, tbl_width, dim,
                                    stream);
}

void attention_decode_paged_launch_bf16(const void* q, const void* k_pool,
                                        const void* v_pool, const int* table,
                                        const int* lens, void* out,
                                        int batch, int hq, int hkv, int page,
                                        int tbl_width, int dim,
                                        std::uintptr_t stream) {
    attention_decode_paged_launch_t(
        static_cast<const __nv_bfloat16*>(q),
        static_cast<const __nv_bfloat16*>(k_pool),
        static_cast<const __nv_bfloat16*>(v_pool), table, lens,
        static_cast<__nv_bfloat16*>(out), batch, hq, hkv, page, tbl_width,
        dim, stream);
}

void attention_decode_paged_launch_fp16(const void* q, const void* k_pool,
                                        const void* v_pool, const int* table,
                                        const int* lens, void* out,
                                        int batch, int hq, int hkv, int page,
                                        int tbl_width, int dim,
                                        std::uintptr_t stream) {
    attention_decode_paged_launch_t(
        static_cast<const __half*>(q), static_cast<const __half*>(k_pool),
        static_cast<const __half*>(v_pool), table, lens,
        static_cast<__half*>(out), batch, hq, hkv, page, tbl_width, dim,
        stream);
}

// ---------------------------------------------------------------------------
// paged kv-cache append launcher (v1.2): dtype-templated scatter of one
// fresh token's k/v rows per sequence into the pool (see the kernel
// comment above). lens is REQUIRED (the write position is the current
// length by definition).
// ---------------------------------------------------------------------------

template <typename T>
void kv_append_paged_launch_t(const T* k_new, const T* v_new,
                              const int* table, const int* lens,
                              T* k_pool, T* v_pool, int batch, int hkv,
                              int dim, int page, int tbl_width,
                              std::uintptr_t stream) {
    if (batch <= 0)
        return;                        // nothing to append
    if (dim % 4 != 0)
        throw std::invalid_argument("dim must be a multiple of 4");
    if (page < 1)
        throw std::invalid_argument("page size must be >= 1");
    cudaStream_t cs = (cudaStream_t)stream;
    const int chunks = hkv * (dim / 4);
    dim3 grid((unsigned)batch,
              (unsigned)((chunks + kAttBlock - 1) / kAttBlock));
    kv_append_kernel<true, T><<<grid, kAttBlock, 0, cs>>>(
        k_new, v_new, table, lens, k_pool, v_pool, hkv, dim, page,
        tbl_width);
    check_launch("kv append paged kernel launch");
}

void kv_append_paged_launch(const float* k_new, const float* v_new,
                            const int* table, const int* lens, float* k_pool,
                            float* v_pool, int batch, int hkv, int dim,
                            int page, int tbl_width,
                            std::uintptr_t stream) {
    kv_append_paged_launch_t(k_new, v_new, table, lens, k_pool, v_pool,
                             batch, hkv, dim, page, tbl_width, stream);
}

void kv_append_paged_launch_bf16(const void* k_new, const void* v_new,
                                 const int* table, const int* lens,
                                 void* k_pool, void* v_pool, int batch,
                                 int hkv, int dim, int page, int tbl_width,
                                 std::uintptr_t stream) {
    kv_append_paged_launch_t(
        static_cast<const __nv_bfloat16*>(k_new),
        static_cast<const __nv_bfloat16*>(v_new), table, lens,
        static_cast<__nv_bfloat16*>(k_pool),
        static_cast<__nv_bfloat16*>(v_pool), batch, hkv, dim, page,
        tbl_width, stream);
}

void kv_append_paged_launch_fp16(const void* k_new, const void* v_new,
                                 const int* table, const int* lens,
                                 void* k_pool, void* v_pool, int batch,
                                 int hkv, int dim, int page, int tbl_width,
                                 std::uintptr_t stream) {
    kv_append_paged_launch_t(static_cast<const __half*>(k_new),
                             static_cast<const __half*>(v_new), table,
                             lens, static_cast<__half*>(k_pool),
                             static_cast<__half*>(v_pool), batch, hkv, dim,
                             page, tbl_width, stream);
}

// ---------------------------------------------------------------------------
// contiguous kv-cache append launcher (v1.3): the cache-write side of
// the contiguous decode loop (the paged twin lives above) - one kernel
// template covers both layouts (see kv_append_kernel). Values in lens
// are the kernel's to trust on the zero-copy path (same boundary as
// the attention ops; host paths validate).
// ---------------------------------------------------------------------------

template <typename T>
void kv_append_launch_t(const T* k_new, const T* v_new, const int* lens,
                        T* k_cache, T* v_cache, int batch, int hkv,
                        int dim, int t_rows, std::uintptr_t stream) {
    if (batch <= 0)
        return;                        // nothing to append
    if (dim % 4 != 0)
        throw std::invalid_argument("dim must be a multiple of 4");
    cudaStream_t cs = (cudaStream_t)stream;
    const int chunks = hkv * (dim / 4);
    dim3 grid((unsigned)batch,
              (unsigned)((chunks + kAttBlock - 1) / kAttBlock));
    kv_append_kernel<false, T><<<grid, kAttBlock, 0, cs>>>(
        k_new, v_new, nullptr, lens, k_cache, v_cache, hkv, dim, t_rows,
        0);
    check_launch("kv append kernel launch");
}

void kv_append_launch(const float* k_new, const float* v_new,
                      const int* lens, float* k_cache, float* v_cache,
                      int batch, int hkv, int dim, int t_rows,
                      std::uintptr_t stream) {
    kv_append_launch_t(k_new, v_new, lens, k_cache, v_cache, batch, hkv,
                       dim, t_rows, stream);
}

void kv_append_launch_bf16(const void* k_new, const void* v_new,
                           const int* lens, void* k_cache, void* v_cache,
                           int batch, int hkv, int dim, int t_rows,
                           std::uintptr_t stream) {
    kv_append_launch_t(
        static_cast<const __nv_bfloat16*>(k_new),
        static_cast<const __nv_bfloat16*>(v_new), lens,
        static_cast<__nv_bfloat16*>(k_cache),
        static_cast<__nv_bfloat16*>(v_cache), batch, hkv, dim, t_rows,
        stream);
}

void kv_append_launch_fp16(const void* k_new, const void* v_new,
                           const int* lens, void* k_cache, void* v_cache,
                           int batch, int hkv, int dim, int t_rows,
                           std::uintptr_t stream) {
    kv_append_launch_t(static_cast<const __half*>(k_new),
                       static_cast<const __half*>(v_new), lens,
                       static_cast<__half*>(k_cache),
                       static_cast<__half*>(v_cache), batch, hkv, dim,
                       t_rows, stream);
}

void kv_append_paged_cpu(const std::vector<float>& k_new,
                         const std::vector<float>& v_new,
                         const std::vector<int>& table,
                         const std::vector<int>& lens,
                         std::vector<float>& k_pool,
                         std::vector<float>& v_pool, int batch, int hkv,
                         int dim, int page, int tbl_width, int num_blocks) {
    if (dim % 4 != 0)
        throw std::invalid_argument("dim must be a multiple of 4");
    if (page < 1)
        throw std::invalid_argument("page size must be >= 1");
    if (lens.size() < (size_t)batch ||
        table.size() < (size_t)batch * tbl_width ||
        k_new.size() < (size_t)batch * hkv * dim ||
        v_new.size() < (size_t)batch * hkv * dim)
        throw std::invalid_argument("kv append operand size mismatch");
    for (int bi = 0; bi < batch; ++bi) {
        const int pos = lens[bi];
        if (pos < 0 || pos >= tbl_width * page)
            throw std::invalid_argument(
                "lens entries must be within [0, table width * page)");
        const int blk = table[(size_t)bi * tbl_width + pos / page];
        if (blk < 0 || blk >= num_blocks)
            throw std::invalid_argument(
                "block table entries must be valid pool block ids");
        const int off = pos % page;
        for (int h = 0; h < hkv; ++h) {
            const size_t dst = (((size_t)blk * hkv + h) * page + off) * dim;
            const size_t src = ((size_t)bi * hkv + h) * dim;
            std::copy(k_new.begin() + src, k_new.begin() + src + dim,
                      k_pool.begin() + dst);
            std::copy(v_new.begin() + src, v_new.begin() + src + dim,
                      v_pool.begin() + dst);
        }
    }
}

void kv_append_cpu(const std::vector<float>& k_new,
                   const std::vector<float>& v_new,
                   const std::vector<int>& lens,
                   std::vector<float>& k_cache, std::vector<float>& v_cache,
                   int batch, int hkv, int dim, int t_rows) {
    if (dim % 4 != 0)
        throw std::invalid_argument("dim must be a multiple of 4");
    if (lens.size() < (size_t)batch ||
        k_new.size() < (size_t)batch * hkv * dim ||
        v_new.size() < (size_t)batch * hkv * dim)
        throw std::invalid_argument("kv append operand size mismatch");
    for (int bi = 0; bi < batch; ++bi) {
        const int pos = lens[bi];
        if (pos < 0 || pos >= t_rows)
            throw std::invalid_argument(
                "lens entries must be within [0, cache rows)");
        for (int h = 0; h < hkv; ++h) {
            const size_t dst = (((size_t)bi * hkv + h) * t_rows + pos) * dim;
            const size_t src = ((size_t)bi * hkv + h) * dim;
            std::copy(k_new.begin() + src, k_new.begin() + src + dim,
                      k_cache.begin() + dst);
            std::copy(v_new.begin() + src, v_new.begin() + src + dim,
                      v_cache.begin() + dst);
        }
    }
}

} // namespace fusedtok
