// Top-k / top-p selection and greedy decoding helpers.
//
// Selection contract (identical across all paths):
//   - results sorted descending by value
//   - ties resolved toward the smallest index (deterministic)
//
// Mechanism: order-preserving packed 64-bit keys
//   key = (monotonic_float_bits << 32) | (0xFFFFFFFF - index)
// Keys are unique (index in the low bits) and their total order IS the
// required result order, so selecting and sorting keys yields both the
// ordering and the deterministic tie resolution for free.
//
// GPU path - a pipeline of PLAIN kernels on the caller's stream (v0.4).
// The v0.1-v0.3 single cooperative kernel synchronized every radix round
// with grid.sync() barriers (24 per call); on many-SM GPUs the barrier
// storms dominated the runtime (bare topk 0.31x vs torch's CUB on a
// 36-SM part). The v0.4 pipeline removes cooperative launch entirely:
//
//   stage 1 - radix refinement: one small kernel per byte level (7..0).
//     Every block histograms its share of the surviving candidates into
//     shared memory, merges the nonzero bins into a global histogram
//     (device atomics), then bumps an arrival ticket (release fence
//     before the ticket). The LAST block to arrive - and only it - scans
//     the 256 bins top-down, tightens the prefix, and resets the
//     histogram + ticket for the next launch. Inter-kernel visibility
//     comes from stream ordering; intra-kernel cross-block visibility
//     comes from the fence+ticket release/acquire pair. No block ever
//     waits: the decider is simply the last one to arrive.
//   stage 2 - early exit: when a round's boundary bin holds at most
//     kSelEarlyOut candidates, the next launch skips histogramming and
//     instead COMPACTS the survivors into a small buffer; its last block
//     bitonic-sorts them in shared memory and publishes the final k-th
//     key directly. Remaining round launches self-disable (cheap no-ops).
//     Typical spread data exits after two rounds regardless of k.
//   stage 3 - emit: a parallel pass writes key > k_min into result slots
//     via an atomic counter (keys are unique, so exactly one key equals
//     k_min; it fills the last slot through the tie counter).
//   stage 4a - k <= kSelEarlyOut: the emit kernel's last block sorts the
//     k keys in shared memory, decodes values/indices, and (in nucleus /
//     sampling mode) runs the serial mass scan - one launch finishes.
//   stage 4b - k > kSelEarlyOut: chunk sort (per-block kSelSortChunk-key
//     shared bitonic) + a merge ladder with ONE plain launch per level
//     (merge-path co-rank tiles), then an elementwise decode kernel and,
//     for top-p, a two-kernel parallel nucleus count.
//
// Workspace (histogram, tickets, counters, key buffers) is process-cached
// and grown on demand: per-call cudaMalloc/cudaFree would synchronize the
// device and serialize repeated invocations (and break CUDA graph
// capture). A fixed kWsHead-word head is zeroed with one async memset per
// call; all later state flows through that region.
//
// Devices without cooperative launch: no longer special-cased - plain
// launches run everywhere (the v0.1 host-rounds fallback is gone).
//
// NaN inputs are not order-preserving (undefined result), matching common
// library behavior.

#include "fusedtok/activations.hpp"
#include "fusedtok/cuda_launch.hpp"
#include "cuda_util.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace fusedtok {

namespace {

void topk_check(const std::vector<float>& x, int k) {
    if (k < 0)
        throw std::invalid_argument("k must be >= 0");
    if (static_cast<size_t>(k) > x.size())
        throw std::invalid_argument("k must not exceed x.size()");
}

constexpr int kSelBlock = 256;
constexpr int kSelWarps = kSelBlock / 32;
// Per-block sort chunk (shared-memory bitonic): 1024 keys = 8KB shared.
// Powers of two keep the chunk-merge arithmetic exact. 1024 (v1.0, was
// 2048): the sort is the mid-k bottleneck and a 2048-key bitonic runs in
// ONE block - halving the chunk halves its serial span and buys one
// parallel merge level instead (the ladder costs ~2us per level inside
// the cached graph; the single-block sort cost ~20us at k=2048).
constexpr int kSelSortChunk = 1024;
// Early-exit threshold: a radix boundary bin with at most this many
// survivors is resolved by an in-block sort instead of further rounds.
// 1024 (v1.0, was 2048): a single block bitonic-sorting 2048 keys keeps
// every SM but one idle, while the parallel chunk+merge tail spreads the
// same work over the whole device - measured as the entire mid-k
// regression window on both test GPUs.
constexpr int kSelEarlyOut = 1024;
// merge tile: one co-rank search + shared staging per this many outputs
constexpr int kSelMergeTile = 256;
// grid cap for the pipelined kernels (ticket scans stay short)
constexpr int kMaxGrid = 1024;
// Nucleus-scan scratch reserved between the key buffers and the args
// block: topp_partial_kernel writes ONE float per block and its grid is
// capped at kMaxGrid blocks, so the reserve must hold kMaxGrid floats
// (kMaxGrid/2 u64 words). The old 256-word reserve (512 floats) was
// exactly enough for n = 512*256 = 131072 - the suite's largest vocab -
// and vocabularies beyond that (e.g. Qwen's 152064) overflowed into the
// SelArgs block and corrupted the output pointers (fixed in 1.2.1).
constexpr int kWsScanWords =
    kMaxGrid * (int)sizeof(float) / (int)sizeof(unsigned long long);

// Workspace head layout (unsigned long long words). The head is zeroed
// by one async memset at the start of every call; the tail (candidates +
// key buffers + scan scratch) is rewritten before every read.
constexpr int kWsTicket = 256;      // arrival ticket (current stage)
constexpr int kWsEmit = 257;        // emit counter
constexpr int kWsTie = 258;         // tie counter
constexpr int kWsPrefix = 259;      // refinement prefix / final k_min
constexpr int kWsRemaining = 260;   // keys still needed / tie_take
constexpr int kWsStage = 261;       // 0 refine | 1 compact next | 2 done
constexpr int kWsCandCnt = 262;     // compaction counter
constexpr int kWsToken = 263;       // sampled token slot (int)
constexpr int kWsExpMax = 264;      // global logit max, fkey bits (sample)
constexpr int kWsTotal = 265;       // global softmax total (float, sample)
// cumulated softmax mass of the whole (failed) sampling window: written
// by the sampling tail whenever the nucleus is not covered, read by the
// host to sharpen the widening jump (widen_window). Each of kWsTotal /
// kWsCumW holds its float in the LOW half of its own u64 word; one
// 16-byte readback of the two words fetches both.
constexpr int kWsCumW = 266;        // window cum mass (sample, float)
constexpr int kWsLevelDone = 267;   // level of the last completed round
// kWsEtaS (270) holds s = sum e_i * (l_i - max) for the eta-cutoff
// sampler's entropy (H = log(total) - s / total) - same
// float-in-the-low-half-of-its-own-u64-word layout as kWsTotal.
// argmax-dedicated slots (NOT shared with the selection pipeline): the
// selection ticket/emit counters can be non-zero after a call, so argmax
// cannot rely on the per-call head memset alone. These two words hold the
// invariant "zero at kernel entry": the buffer is zeroed once at (re)alloc
// and argmax's own finalize resets both words before the kernel exits,
// which makes the per-call cudaMemsetAsync redundant (one launch saved on
// every argmax call - the dominant cost of this op on submission-bound
// hosts; WDDM measured ~20-30us per extra launch).
constexpr int kWsArgBest = 268;     // argmax packed-key max (self-resetting)
constexpr int kWsArgCnt = 269;      // argmax arrival counter (self-resetting)
constexpr int kWsEtaS = 270;        // eta entropy accumulator (float, sample)
// kWsNsS1 / kWsNsS2 (271/272) hold the top-n-sigma moment accumulators
// over the temperature-scaled logits: s1 = sum (l_i - max) and
// s2 = sum (l_i - max)^2, from which the serial walker derives the
// mean mu = max + s1 / n and the standard deviation
// sigma = sqrt(max(s2 / n - (s1/n)^2, 0)) - the cutoff in logit units
// is mu - nsigma * sigma, translated to exp units as
// exp(mu - nsigma * sigma - max). Each slot holds one DOUBLE (a full
// u64 word): the variance computes the difference of two
// nearly-equal large quantities, so float-magnitude arrival-order
// drift would be amplified into visible threshold wobble on wide
// nuclei - double accumulation keeps cross-call reruns stable.
constexpr int kWsNsS1 = 271;        // nsigma first moment acc (double)
constexpr int kWsNsS2 = 272;        // nsigma second moment acc (double)
constexpr int kWsHead = 273;
constexpr int kWsCand = kWsHead;               // candidates [0, kSelEarlyOut)
constexpr int kWsKeys = kWsHead + kSelEarlyOut;  // key buffer A (m words)

// ---------------------------------------------------------------------------
// process-cached workspace
// ---------------------------------------------------------------------------

// Layout: [0..kWsHead) control head (zeroed per call), [kWsCand..+
// kSelEarlyOut) early-exit candidates, then key buffer A (m words), key
// buffer B (m
// words, merge scratch), then 1024 floats of block-sum scratch for the
// big-path nucleus count. Guarded by a mutex; never freed (bounded by the
// largest call). Not safe for concurrent selection launches on different
// streams (documented limitation).
unsigned long long* selection_workspace(size_t extra_words) {
    static unsigned long long* buf = nullptr;
    static size_t capacity = 0;
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    const size_t words = kWsHead + extra_words;
    if (words > capacity) {
        unsigned long long* nb = nullptr;
        if (cudaMalloc(&nb, words * sizeof(unsigned long long)) != cudaSuccess)
            throw std::runtime_error(std::string("selection workspace alloc failed: ") +
                                     cudaGetErrorString(cudaGetLastError()));
        // Zero the fresh buffer once. cudaMalloc memory is NOT guaranteed
        // zero, and the argmax kernel's self-reset contract (kWsArgBest /
        // kWsArgCnt must be zero at kernel entry) starts at the very first
        // call after a (re)allocation. One synchronous memset per growth
        // event only; selection calls keep their own per-call head memset
        // and never depend on this.
        if (cudaMemset(nb, 0, words * sizeof(unsigned long long)) !=
            cudaSuccess)
            throw std::runtime_error(
                std::string("selection workspace zeroing failed: ") +
                cudaGetErrorString(cudaGetLastError()));
        if (buf) cudaFree(buf);
        buf = nb;
        capacity = words;
    }
    return buf;
}

inline __device__ unsigned long long pack_key(float v, int i) {
    return ((unsigned long long)fkey(v) << 32) | (0xFFFFFFFFULL - (unsigned)i);
}

// Repetition-penalty context for the fused decode_step path: a vocab
// bitmap (built once per step from the sampled ids) plus the penalty.
// use == 0 selects the plain path (no bitmap traffic). The penalty
// applies to the RAW logit before the temperature scale, matching the
// composed repetition_penalty -> temperature -> sample reference order.
struct PenCtx {
    const unsigned long long* bm;
    float penalty;
    int use;
};

__device__ __forceinline__ float step_logit(const float* __restrict__ x,
                                            int i, float inv_t, PenCtx pen) {
    float v = x[i];
    if (pen.use) {
        if ((pen.bm[i >> 6] >> (i & 63)) & 1ULL)
            v = v > 0.0f ? v / pen.penalty : v * pen.penalty;
    }
    return v * inv_t;
}

// Marks the sampled ids in the vocab bitmap (one bit per token).
// Host-side validation already rejected out-of-range ids; the guard
// keeps a bad device-resident tensor (trusted, not synced - see
// _ids_arg) from corrupting memory - same convention as the v1.5
// penalty_count_kernel.
__global__ void penalty_bitmap_kernel(const long long* __restrict__ ids,
                                      int m, int n,
                                      unsigned long long* __restrict__ bm) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    const int id = (int)ids[j];
    if (id < 0 || id >= n) return;   // validated on host; defensive guard
    atomicOr(&bm[id >> 6], 1ULL << (id & 63));
}

// Batched penalty context (v1.5 decode_step_batched): the per-row
// bitmaps sit contiguously after the stripes, bmw words apart. Kernels
// derive their row's PenCtx after the row lookup; use == 0 (and the
// samplers' kNoPenB below) selects the plain no-bitmap path.
struct PenCtxB {
    const unsigned long long* bm;   // row 0's bitmap base
    float penalty;
    int use;
    int bmw;                        // bitmap words per row
};

__device__ __forceinline__ PenCtx b_pen(PenCtxB b, int row) {
    return PenCtx{b.bm + (size_t)row * b.bmw, b.penalty, b.use};
}

constexpr PenCtxB kNoPenB{nullptr, 1.0f, 0, 0};

// Batched bitmap build: the histories are ragged - one flat id array
// plus per-row offsets (offs[r] .. offs[r+1] is row r). One thread per
// id; the owning row comes from a short binary search over the offsets
// (rows <= kBMaxBatch + 1 entries). atomicOr tolerates duplicate ids;
// id values were validated host-side before the upload (the offsets
// themselves too - monotone, in [0, m]); the range guard mirrors
// penalty_count_kernel so a bad device-resident tensor cannot corrupt
// neighboring rows' bitmaps.
__global__ void penalty_bitmap_b_kernel(
    const long long* __restrict__ ids, const int* __restrict__ offs,
    int rows, int bmw, unsigned long long* __restrict__ bm_base) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= offs[rows]) return;
    int lo = 0, hi = rows - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (offs[mid] <= j) lo = mid;
        else hi = mid - 1;
    }
    const int id = (int)ids[j];
    if (id < 0 || (id >> 6) >= bmw) return;   // host-validated; defensive
    atomicOr(&bm_base[(size_t)lo * bmw + (id >> 6)], 1ULL << (id & 63));
}

// ---------------------------------------------------------------------------
// per-call pointer block (graph-indirect arguments)
// ---------------------------------------------------------------------------

// The selection pipeline is captured into a process-cached CUDA graph so
// the whole multi-kernel sequence submits as ONE launch (per-kernel
// submission costs 2-8us depending on platform and otherwise dominates
// the pipeline). A graph bakes pointer VALUES into its nodes, so the
// per-call pointers (input x, outputs vals/idxs/count_out) travel
// through this small block instead: the host writes a pinned mirror,
// one async H2D copy ships it to a fixed workspace slot, and the kernels
// dereference it at entry. Raw launches (first call / outer capture)
// use the exact same path.
struct SelArgs {
    const float* x;
    float* vals;
    long long* idxs;
    int* count_out;
    float p_stop;
};

// Device-side arg slot for a given pad size m (after the scan scratch).
inline size_t sel_args_off(int m) {
    return kWsHead + (size_t)kSelEarlyOut + 2 * (size_t)m + kWsScanWords;
}

// Pinned host mirror as a rotating ring: the CPU may rewrite the args
// while a PREVIOUS call's async H2D copy is still queued (host-ahead
// submission), so each call gets its own slot and a slot is reused only
// after an event proves its prior copy executed. 32 slots keep steady
// decode loops running without CPU stalls.
constexpr int kArgRing = 32;

// Ship one call's pointers: guard a ring slot (its previous H2D copy
// must have EXECUTED before the CPU overwrites it), write the args,
// issue the copy, then record the completion event AFTER the copy so the
// event truly fences the read. Used on the internal-graph path (never
// during an outer capture).
void ship_args(cudaStream_t cs, SelArgs* dargs, const float* x,
               float* vals, long long* idxs, int* count_out, float p_stop) {
    struct Ring {
        SelArgs* slots = nullptr;      // one pinned block, kArgRing entries
        cudaEvent_t ev[kArgRing];
        int cur = 0;
        std::mutex mu;
        Ring() {
            if (cudaHostAlloc(&slots, kArgRing * sizeof(SelArgs),
                              cudaHostAllocDefault) != cudaSuccess) {
                slots = nullptr;
                throw std::runtime_error(
                    std::string("pinned arg ring alloc failed: ") +
                    cudaGetErrorString(cudaGetLastError()));
            }
            for (int i = 0; i < kArgRing; ++i)
                if (cudaEventCreate(&ev[i]) != cudaSuccess)
                    throw std::runtime_error("arg ring event create failed");
        }
        ~Ring() {
            if (slots) cudaFreeHost(slots);
            for (int i = 0; i < kArgRing; ++i)
                if (ev[i]) cudaEventDestroy(ev[i]);
        }
    };
    static Ring ring;
    std::lock_guard<std::mutex> lock(ring.mu);
    const int i = ring.cur;
    ring.cur = (i + 1) % kArgRing;
    // wait until the copy that last read this slot has executed
    cudaError_t st = cudaEventQuery(ring.ev[i]);
    if (st == cudaErrorNotReady)
        cudaEventSynchronize(ring.ev[i]);
    else if (st != cudaSuccess)
        cudaGetLastError();          // clear a sticky error, keep going
    SelArgs& a = ring.slots[i];
    a.x = x;
    a.vals = vals;
    a.idxs = idxs;
    a.count_out = count_out;
    a.p_stop = p_stop;
    // a failed enqueue (bad pointer etc.) would leave the device args
    // stale and the kernel reading the PREVIOUS call's pointers - both
    // the copy and its fence must succeed
    if (cudaMemcpyAsync(dargs, &a, sizeof(SelArgs), cudaMemcpyHostToDevice,
                        cs) != cudaSuccess ||
        cudaEventRecord(ring.ev[i], cs) != cudaSuccess)
        throw std::runtime_error(
            std::string("selection args upload failed: ") +
            cudaGetErrorString(cudaGetLastError()));
}

// Descending shared-memory bitonic sort over `len` (power of two) keys.
// Within one stride pass each index joins exactly one (i, i^stride) pair,
// so plain shared loads/stores race nowhere. Call from all block threads.
__device__ __forceinline__ void bitonic_desc_shared(unsigned long long* sk,
                                                    int len) {
    for (int size = 2; size <= len; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            __syncthreads();
            for (int i = threadIdx.x; i < len; i += blockDim.x) {
                const int j = i ^ stride;
                if (j > i && j < len) {
                    const bool up = (i & size) == 0;   // descending
                    const unsigned long long v0 = sk[i];
                    const unsigned long long v1 = sk[j];
                    if ((up && v0 < v1) || (!up && v0 > v1)) {
                        sk[i] = v1;
                        sk[j] = v0;
                    }
                }
            }
        }
    }
    __syncthreads();
}

// ---------------------------------------------------------------------------
// stage 1/2: radix refinement rounds + early-exit compaction
// ---------------------------------------------------------------------------

// One launch per byte level (7..0); the compaction and the k_min
// publish live in the separate select_finalize_kernel. Behavior is
// driven by the stage word so the host can issue the full fixed
// sequence unconditionally (CUDA-graph friendly):
//   stage 0 (refine)  - histogram byte `level` of the candidates whose
//                       bytes above this level match the prefix; the last
//                       arriving block scans the global histogram and
//                       tightens the prefix.
//   stage 1/2         - return immediately: compaction and the k_min
//                       publish belong to select_finalize_kernel (kept
//                       out of this kernel so the rounds run with 2KB of
//                       shared memory and only the finalize pays for the
//                       candidate buffer); post-settled rounds are no-ops.
// `remaining0` carries k for the first round (the head memset left the
// remaining slot at zero). `inv_t` scales logits in sampling mode; any
// positive scale preserves the key order.
__global__ void select_round_kernel(const SelArgs* __restrict__ a,
                                    unsigned long long* __restrict__ ws,
                                    int n, int level,
                                    unsigned long long remaining0,
                                    float inv_t, PenCtx pen) {
    const float* __restrict__ x = a->x;
    __shared__ unsigned long long sh_hist[256];
    __shared__ int sh_ticket;

    const unsigned long long stage = ws[kWsStage];
    if (stage != 0ULL) return;                       // settle/compact elsewhere

    unsigned long long* hist = ws;
    unsigned long long* ticket = ws + kWsTicket;

    const unsigned long long prefix = ws[kWsPrefix];          // 0 at level 7
    const unsigned long long remaining =
        (level == 7) ? remaining0 : ws[kWsRemaining];
    // Histogram byte `level` of every key whose bytes ABOVE this level
    // already match the prefix. At level 7 there are no higher bytes, so
    // every key participates (mask 0). In sampling mode the key is built
    // from the temperature-scaled logit (identical ordering for T > 0).
    const unsigned long long topmask =
        (level == 7) ? 0ULL : ~((1ULL << (8 * (level + 1))) - 1ULL);
    // two-stage histogram: accumulate into per-block SHARED bins, then
    // merge once per block - a global atomic per element serializes on
    // hot bins, this keeps the hot loop shared-memory-only. Within a
    // warp, lanes hitting the same bin aggregate FIRST (__match_any_sync)
    // and only the group leader adds once: concentrated distributions
    // would otherwise serialize every lane on a handful of shared
    // addresses (measured 3-5x of the whole kernel on byte-7 rounds).
    for (int b = threadIdx.x; b < 256; b += kSelBlock) sh_hist[b] = 0ULL;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        const unsigned long long key = pack_key(step_logit(x, i, inv_t, pen), i);
        if ((key & topmask) != prefix) continue;
        const int bin = (int)((key >> (8 * level)) & 0xFF);
        const unsigned grp = __match_any_sync(__activemask(), bin);
        if (__ffs(grp) - 1 == (int)(threadIdx.x & 31))
            atomicAdd(&sh_hist[bin], (unsigned long long)__popc(grp));
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += kSelBlock)
        if (sh_hist[b]) atomicAdd(&hist[b], sh_hist[b]);
    __syncthreads();                                // my atomics are issued
    if (threadIdx.x == 0) {
        __threadfence();                            // release: hist visible
        sh_ticket = (int)atomicAdd(ticket, 1ULL);
    }
    __syncthreads();
    if (sh_ticket != (int)gridDim.x - 1) return;    // decider = last arrival
    __threadfence();                                // acquire: hist visible

    // Stage the histogram through shared memory with a COOPERATIVE
    // volatile load: one volatile read per thread (~600ns L2 latency,
    // fully parallel) instead of 256 serial reads by one thread, which
    // latency-dominated the whole pipeline.
    const volatile unsigned long long* vhist =
        (const volatile unsigned long long*)hist;
    for (int b = threadIdx.x; b < 256; b += kSelBlock)
        sh_hist[b] = vhist[b];
    __syncthreads();

    // Scan bins top-down (shared memory now) to locate the boundary bin:
    // the first bin where the accumulated count reaches `remaining`.
    if (threadIdx.x == 0) {
        unsigned long long acc = 0;
        for (int b = 255; b >= 0; --b) {
            const unsigned long long c = sh_hist[b];
            if (acc + c >= remaining) {
                ws[kWsPrefix] = prefix | ((unsigned long long)b << (8 * level));
                ws[kWsRemaining] = remaining - acc;
                ws[kWsLevelDone] = (unsigned long long)level;
                // Small boundary bin: the finalize launch compacts + sorts
                // these survivors instead of histogramming again.
                if (c <= (unsigned long long)kSelEarlyOut) ws[kWsStage] = 1ULL;
                break;
            }
            acc += c;
        }
    }
    // reset histogram + ticket for the next round launch (cooperative)
    for (int b = threadIdx.x; b < 256; b += kSelBlock) hist[b] = 0ULL;
    if (threadIdx.x == 0) *ticket = 0ULL;
}

// ---------------------------------------------------------------------------
// stage 3/4a: emit (+ in-block finish for k <= kSelEarlyOut)
// ---------------------------------------------------------------------------

// Emit selected keys: keys > k_min take slots through the emit counter;
// the single key == k_min fills the last slot through the tie counter.
// Exactly k slots are written (full-key uniqueness).
//
// Counting is TWO-LEVEL: selections stage into a shared-memory buffer (a
// bounded batch of blockDim.x per grid-stride step), then each block
// grabs ONE global slot range with a single atomicAdd of its batch count.
// A flat per-key global atomic serializes the whole grid on one L2
// address (~260us at 131k keys); the two-level scheme costs one atomic
// per block. The k == n full-selection case skips counting entirely -
// every key ranks, so the element index IS the slot.
__device__ __forceinline__ void emit_selected(
    const float* __restrict__ x, unsigned long long* __restrict__ ws,
    int n, int k, float inv_t, PenCtx pen) {
    const unsigned long long k_min = ws[kWsPrefix];
    const unsigned long long tie_take = ws[kWsRemaining];
    unsigned long long* keys = ws + kWsKeys;
    unsigned long long* emit_cnt = ws + kWsEmit;
    unsigned long long* tie_cnt = ws + kWsTie;

    if (k == n) {
        // full selection: every key ranks (k_min is the minimum key)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += gridDim.x * blockDim.x)
            keys[i] = pack_key(step_logit(x, i, inv_t, pen), i);
        return;
    }

    __shared__ unsigned long long sh_keys[kSelBlock];
    __shared__ unsigned long long sh_cnt;
    __shared__ unsigned long long sh_base;
    if (threadIdx.x == 0) sh_cnt = 0ULL;
    __syncthreads();
    // grid-stride in batches of blockDim.x elements per block: each batch
    // stages at most blockDim.x keys before the flush
    for (int base = blockIdx.x * blockDim.x; base < n;
         base += gridDim.x * blockDim.x) {
        const int i = base + threadIdx.x;
        if (i < n) {
            const unsigned long long key = pack_key(step_logit(x, i, inv_t, pen), i);
            if (key > k_min) {
                const unsigned long long pos = atomicAdd(&sh_cnt, 1ULL);
                if (pos < (unsigned long long)kSelBlock) sh_keys[pos] = key;
            } else if (key == k_min && tie_take > 0) {
                const unsigned long long pos = atomicAdd(tie_cnt, 1ULL);
                if (pos < tie_take) keys[k - tie_take + pos] = key;
            }
        }
        __syncthreads();
        const unsigned long long cnt = sh_cnt;
        if (cnt > 0ULL) {
            if (threadIdx.x == 0) {
                __threadfence();        // stage stores before the claim
                sh_base = atomicAdd(emit_cnt, cnt);
            }
            __syncthreads();
            const unsigned long long out = sh_base + threadIdx.x;
            if (threadIdx.x < cnt && out < (unsigned long long)k)
                keys[out] = sh_keys[threadIdx.x];
        }
        __syncthreads();
        if (threadIdx.x == 0) sh_cnt = 0ULL;
        __syncthreads();
    }
}

// Modes driven by the trailing parameters (identical to v0.3 semantics):
//   selection: p_stop > 0 requests the nucleus count in count_out
//   sampling:  sample != 0 treats the input as RAW LOGITS scaled by
//     inv_T; the finisher converts the sorted keys to softmax
//     probabilities, finds the nucleus at mass p, then inverse-CDF
//     samples within it using a hash-derived uniform (deterministic per
//     seed). The winning token goes to token_out; an uncovered nucleus
//     leaves it untouched (host retries with a wider window).
// The serial mass scans deliberately accumulate in the SAME order as the
// CPU reference so per-seed GPU/CPU token parity is bit-stable away from
// exact mass-boundary draws.
__global__ void emit_finish_kernel(const SelArgs* __restrict__ a,
                                   unsigned long long* __restrict__ ws,
                                   int n, int k, float inv_t,
                                   unsigned long long seed, int sample,
                                   PenCtx pen) {
    const float p_stop = a->p_stop;
    const float* __restrict__ x = a->x;
    float* vals = a->vals;
    long long* idxs = a->idxs;
    int* count_out = a->count_out;
    int* token_out = reinterpret_cast<int*>(ws + kWsToken);
    __shared__ int sh_ticket;
    emit_selected(x, ws, n, k, inv_t, pen);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();                            // publish my key stores
        sh_ticket = (int)atomicAdd(ws + kWsTicket, 1ULL);
    }
    __syncthreads();
    if (sh_ticket != (int)gridDim.x - 1) return;    // finisher = last block
    __threadfence();                                // acquire: keys visible

    // sort the k emitted keys in shared memory (0-pad to a power of two)
    __shared__ unsigned long long sk[kSelEarlyOut];
    const volatile unsigned long long* vkeys =
        (const volatile unsigned long long*)(ws + kWsKeys);
    int len = 1;
    while (len < k) len <<= 1;
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        sk[i] = (i < k) ? vkeys[i] : 0ULL;
    __syncthreads();
    bitonic_desc_shared(sk, len);

    for (int i = threadIdx.x; i < k; i += blockDim.x) {
        const unsigned long long key = sk[i];
        const int idx = (int)(0xFFFFFFFFu - (unsigned)(key & 0xFFFFFFFFu));
        if (vals) vals[i] = unfkey((unsigned)(key >> 32));
        if (idxs) idxs[i] = idx;
    }

    if (threadIdx.x != 0) return;
    if (sample != 0) {
        // fused nucleus sampling over the sorted window keys (see header
        // note). The threshold uses the GLOBAL softmax total computed by
        // exptotal_kernel: cum is a prefix of the global CDF, so the
        // crossing may fall beyond the window - that is the host's cue
        // to widen (the token stays untouched).
        const float row_max = unfkey((unsigned)(sk[0] >> 32));
        const float total =
            *reinterpret_cast<const float*>(&ws[kWsTotal]);
        float cum = 0.0f;
        int nucleus = 0;
        float nucleus_mass = 0.0f;
        bool covered = false;
        for (int i = 0; i < k; ++i) {
            cum += __expf(unfkey((unsigned)(sk[i] >> 32)) - row_max);
            nucleus = i + 1;
            if (cum >= p_stop * total) { nucleus_mass = cum; covered = true; break; }
        }
        if (!covered) {
            if (k < n) {      // window too small; host retries wider -
                // leave the window's whole cum mass for the host's
                // next-jump bound (widen_window)
                *reinterpret_cast<float*>(&ws[kWsCumW]) = cum;
                return;
            }
            nucleus = k;            // full window IS the vocabulary
            nucleus_mass = cum;
        }
        // splitmix64-finalized uniform in [0, 1): deterministic per seed
        const float u = splitmix_uniform(seed);
        const float target = u * nucleus_mass;
        cum = 0.0f;
        int hit = -1;
        for (int i = 0; i < nucleus; ++i) {
            cum += __expf(unfkey((unsigned)(sk[i] >> 32)) - row_max);
            if (cum >= target) {
                hit = i;
                break;
            }
        }
        // a float-boundary draw that never reaches target takes the
        // last nucleus element - the CPU reference's fallback (the
        // topk walker has always done this)
        if (hit < 0)
            hit = nucleus - 1;
        *token_out = (int)(0xFFFFFFFFu -
                           (unsigned)(sk[hit] & 0xFFFFFFFFu));
        if (count_out) *count_out = nucleus;
        return;
    }
    if (p_stop > 0.0f) {
        // nucleus count over the sorted probabilities: first prefix whose
        // mass reaches p_stop (crossing element included)
        float cum = 0.0f;
        for (int i = 0; i < k; ++i) {
            cum += unfkey((unsigned)(sk[i] >> 32));
            if (cum >= p_stop) {
                *count_out = i + 1;
                return;
            }
        }
        *count_out = k;    // p exceeds the total mass (float rounding)
    }
}

// ---------------------------------------------------------------------------
// stage 3/4b: big-k pipeline (emit, chunk sort, merge ladder, decode)
// ---------------------------------------------------------------------------

__global__ void emit_kernel(const SelArgs* __restrict__ a,
                            unsigned long long* __restrict__ ws,
                            int n, int k, float inv_t, PenCtx pen) {
    emit_selected(a->x, ws, n, k, inv_t, pen);
}

// Sort one kSelSortChunk-key chunk per block (shared-memory bitonic).
// Elements beyond k load as zero pads; real keys are always > 0 (index
// bits), so pads sink to the tail of the descending order.
__global__ void chunk_sort_kernel(unsigned long long* __restrict__ keys,
                                  int k, int m) {
    __shared__ unsigned long long sk[kSelSortChunk];
    const int chunks = (m + kSelSortChunk - 1) / kSelSortChunk;
    for (int chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        const int base = chunk * kSelSortChunk;
        const int len = min(kSelSortChunk, m - base);
        for (int i = threadIdx.x; i < len; i += blockDim.x)
            sk[i] = (base + i < k) ? keys[base + i] : 0ULL;
        __syncthreads();
        bitonic_desc_shared(sk, len);
        for (int i = threadIdx.x; i < len; i += blockDim.x)
            keys[base + i] = sk[i];
        __syncthreads();    // sk reused by the next chunk of this block
    }
}

// One merge level of the ladder: pairwise merges of `run`-sized sorted
// runs, tile-based merge path. ONE global-memory co-rank binary search
// per tile locates the (i, j) split of the two source runs; the tile's
// inputs are staged into shared memory and each thread resolves its
// element with a cheap in-shared search. Global reads stay coalesced.
// Buffers ping-pong; the host tracks which side holds the result.
__global__ void merge_level_kernel(const unsigned long long* __restrict__ src,
                                   unsigned long long* __restrict__ dst,
                                   int m, int run) {
    __shared__ unsigned long long sA[kSelMergeTile];
    __shared__ unsigned long long sB[kSelMergeTile];
    const long long ntiles = m / kSelMergeTile;
    for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const long long p0 = tile * kSelMergeTile;
        const long long pair = p0 / (2 * run);
        const long long lo0 = p0 - pair * 2 * run;
        const long long a_base = pair * 2 * run;
        const long long b_base = a_base + run;
        // co-rank for the tile start: largest i with
        // (i == 0 || A[i-1] > B[lo0-i])
        long long l = lo0 > run ? lo0 - run : 0;
        long long h = lo0 < run ? lo0 : run;
        while (l < h) {
            const long long mid = (l + h + 1) >> 1;
            const bool pred =
                mid == 0 || src[a_base + mid - 1] > src[b_base + lo0 - mid];
            if (pred) l = mid; else h = mid - 1;
        }
        const long long i0 = l, j0 = lo0 - i0;
        // stage up to kSelMergeTile inputs from each run (0-padded;
        // real keys are > 0 so pads sort to the tail)
        for (int u = threadIdx.x; u < kSelMergeTile; u += kSelBlock) {
            sA[u] = (i0 + u < run) ? src[a_base + i0 + u] : 0ULL;
            sB[u] = (j0 + u < run) ? src[b_base + j0 + u] : 0ULL;
        }
        __syncthreads();
        // in-tile co-rank per thread (shared memory, log T steps)
        for (int u = threadIdx.x; u < kSelMergeTile; u += kSelBlock) {
            long long l2 = 0;
            long long h2 = u < kSelMergeTile ? u : kSelMergeTile;
            while (l2 < h2) {
                const long long mid = (l2 + h2 + 1) >> 1;
                const bool pred = mid == 0 || sA[mid - 1] > sB[u - mid];
                if (pred) l2 = mid; else h2 = mid - 1;
            }
            const long long i = l2, j = u - i;
            const bool take_a =
                (i < kSelMergeTile) &&
                (j >= kSelMergeTile || sA[i] > sB[j]);
            dst[p0 + u] = take_a ? sA[i] : sB[j];
        }
        __syncthreads();
    }
}

__global__ void decode_kernel(const SelArgs* __restrict__ a,
                              const unsigned long long* __restrict__ keys,
                              int k) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < k;
         i += gridDim.x * blockDim.x) {
        const unsigned long long key = keys[i];
        if (a->vals) a->vals[i] = unfkey((unsigned)(key >> 32));
        if (a->idxs) a->idxs[i] = (int)(0xFFFFFFFFu - (unsigned)(key & 0xFFFFFFFFu));
    }
}

// ---------------------------------------------------------------------------
// stage 4b tail: parallel nucleus count (two kernels)
// ---------------------------------------------------------------------------

// Per-block partial sums of the sorted probabilities.
__global__ void topp_partial_kernel(const unsigned long long* __restrict__ keys,
                                    float* __restrict__ partials, int k,
                                    int per) {
    const long long b0 = (long long)blockIdx.x * per;
    const long long b1 = min((long long)k, b0 + per);
    float s = 0.0f;
    for (long long i = b0 + threadIdx.x; i < b1; i += kSelBlock)
        s += unfkey((unsigned)(keys[i] >> 32));
    s = warp_reduce_sum(s);
    __shared__ float sh_warp[kSelWarps];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) sh_warp[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        #pragma unroll
        for (int w = 0; w < kSelWarps; ++w) t += sh_warp[w];
        partials[blockIdx.x] = t;
    }
}

// Single-block decision: walk the block partials to the block containing
// the p_stop crossing, then resolve the exact index inside that block's
// slice. The float accumulation order differs from the serial CPU loop
// (block-tree partials), so boundary draws may differ by a couple of
// elements at 131k-scale vocabularies - same contract as v0.3.
__global__ void topp_crossing_kernel(const SelArgs* __restrict__ a,
                                     const unsigned long long* __restrict__ keys,
                                     const float* __restrict__ partials,
                                     int k, int per, int nblocks) {
    int* count_out = a->count_out;
    const float p_stop = a->p_stop;
    __shared__ float sh_p[kMaxGrid];
    for (int i = threadIdx.x; i < nblocks; i += kSelBlock) sh_p[i] = partials[i];
    __syncthreads();
    if (threadIdx.x != 0) return;
    float carry = 0.0f;
    int tb = -1;
    for (int b = 0; b < nblocks; ++b) {
        if (carry + sh_p[b] >= p_stop) { tb = b; break; }
        carry += sh_p[b];
    }
    if (tb < 0) { *count_out = k; return; }   // p > total mass
    const long long b0 = (long long)tb * per;
    const long long b1 = min((long long)k, b0 + per);
    float cum = carry;
    for (long long i = b0; i < b1; ++i) {
        cum += unfkey((unsigned)(keys[i] >> 32));
        if (cum >= p_stop) { *count_out = (int)i + 1; return; }
    }
    *count_out = k;    // partial-sum said crossing, serial scan didn't
}

// ---------------------------------------------------------------------------
// stage 4b tail: serial sampling scan (window > kSelEarlyOut)
// ---------------------------------------------------------------------------

// Parallel pre-pass for the sampling scans: materialize exp(v - row_max)
// for the whole sorted window into `exps` (a free ping-pong key buffer).
// The serial walkers below then only do sequential float adds - no expf
// in the single-threaded path, which is what made flat-distribution
// windows (up to 131k entries) cost milliseconds. row_max comes from
// keys[0] (descending order), the exact same value the walkers used to
// derive, so the stored values are bit-identical to the old on-the-fly
// __expf and the accumulation order of every walk is UNCHANGED - per-seed
// tokens are exactly what the pre-1.1 serial scans produced.
__global__ void exp_window_kernel(const unsigned long long* __restrict__ keys,
                                  float* __restrict__ exps, int k) {
    const float row_max = unfkey((unsigned)(keys[0] >> 32));
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < k;
         i += gridDim.x * blockDim.x) {
        exps[i] = __expf(unfkey((unsigned)(keys[i] >> 32)) - row_max);
    }
}

// Latency-hiding helpers for the contract-serial walks below (v1.2).
// The accumulation MUST stay strictly sequential (cum_{i+1} = cum_i +
// e_i in index order - that exact fadd sequence IS the CPU-parity
// determinism contract), but the LOADS are free to run ahead: a batch
// of kWalkBatch independent reads is issued together, then consumed by
// serial adds one at a time. On a full-vocabulary window (n=131072,
// flat distributions) the naive one-load-one-add walk was pure L2
// latency (~160 cycles/element, 12.8ms in one kernel, 97% of the whole
// flat case); with 32 outstanding loads the same order-identical walk
// runs memory-throughput-bound instead (~10 cycles/element).
namespace {
constexpr int kWalkBatch = 32;    // floats per batch = 8 x float4 loads

// Batched walk from an arbitrary (index, cum) state. The prologue
// aligns to 16 bytes; callers passing a checkpoint index (already
// alignment-equivalent) may skip it via i > 0. Identical fadd order to
// the scalar walk; on the (single) batch where the threshold is
// crossed the exact first index is REDONE element-by-element with the
// identical serial adds, so every returned index and cum is
// bit-identical to the naive scalar walk.
__device__ int walk_from(const float* __restrict__ exps, int count,
                         float thr, int i, float cum) {
    if (i == 0) {
        // scalar prologue to a 16-byte boundary (the exps buffers are
        // at least 4-byte aligned floats, but their word offset inside
        // the workspace is not guaranteed even). Scheduling note: the
        // consume side must stay BRANCH-FREE inside a batch (nvcc
        // refuses to hoist loads above the per-element early exits,
        // which serializes one LDG.128 per ~200 cycles - measured
        // 12.8ms at n=131072 before the batched form).
        const int a = (int)(((16u - (unsigned)(uintptr_t)exps) & 15u) >> 2);
        for (; i < a && i < count; ++i) {
            cum += exps[i];
            if (cum >= thr) return i;
        }
    }
    for (; i + kWalkBatch <= count; ) {
        const float4* q = reinterpret_cast<const float4*>(exps + i);
        float4 r[kWalkBatch / 4];
        #pragma unroll
        for (int j = 0; j < kWalkBatch / 4; ++j) r[j] = q[j];
        const float base = cum;
        bool any = false;
        #pragma unroll
        for (int j = 0; j < kWalkBatch / 4; ++j) {
            cum += r[j].x; any |= (cum >= thr);
            cum += r[j].y; any |= (cum >= thr);
            cum += r[j].z; any |= (cum >= thr);
            cum += r[j].w; any |= (cum >= thr);
        }
        if (any) {
            // threshold crossed somewhere in THIS batch: replay just
            // these 32 adds (identical order - identical bits, hot in
            // L1) to pin the exact first index
            float c = base;
            for (int k = i; k < i + kWalkBatch; ++k) {
                c += exps[k];
                if (c >= thr) return k;
            }
        }
        i += kWalkBatch;
    }
    for (; i < count; ++i) {                          // scalar tail
        cum += exps[i];
        if (cum >= thr) return i;
    }
    return -1;
}

// v1.3 checkpoint machinery: walk 1 records the running cum at every
// `stride`-th COMPLETED batch boundary into cps[0..ncp). Because walk
// 1 and walk 2 accumulate the same values in the same index order, the
// cum at any boundary is BIT-IDENTICAL between the two walks - so walk
// 2 may binary-search the checkpoints and resume from the last one
// strictly below its target, turning the average half-window scan into
// a log(search) + one-stride-window scan. Shared-memory cap:
// kWalkCpMax floats; stride scales to keep any window size covered.
constexpr int kWalkCpMax = 8192;   // checkpoint slots (32 KB smem cap)

__device__ int walk_until_cp(const float* __restrict__ exps, int count,
                             float thr, float* cum_out, float* cps,
                             int stride, int* ncp_out) {
    float cum = 0.0f;
    int i = 0;
    int ncp = 0;
    // branch-free recording state: `until_rec` counts batches down to
    // the next checkpoint slot. The batch loop must stay free of
    // CONTROL FLOW for nvcc to keep the float4 loads pipelined (the
    // same scheduling constraint the `any`-flag crossing trick exists
    // for) - so the checkpoint store is unconditional and the slot
    // index advances predicated. Unrecorded slots are simply
    // overwritten by the next record.
    int until_rec = stride;
    const int a = (int)(((16u - (unsigned)(uintptr_t)exps) & 15u) >> 2);
    for (; i < a && i < count; ++i) {
        cum += exps[i];
        if (cum >= thr) { *cum_out = cum; *ncp_out = ncp; return i; }
    }
    for (; i + kWalkBatch <= count; ) {
        const float4* q = reinterpret_cast<const float4*>(exps + i);
        float4 r[kWalkBatch / 4];
        #pragma unroll
        for (int j = 0; j < kWalkBatch / 4; ++j) r[j] = q[j];
        const float base = cum;
        bool any = false;
        #pragma unroll
        for (int j = 0; j < kWalkBatch / 4; ++j) {
            cum += r[j].x; any |= (cum >= thr);
            cum += r[j].y; any |= (cum >= thr);
            cum += r[j].z; any |= (cum >= thr);
            cum += r[j].w; any |= (cum >= thr);
        }
        if (any) {
            float c = base;
            for (int k = i; k < i + kWalkBatch; ++k) {
                c += exps[k];
                if (c >= thr) { *cum_out = c; *ncp_out = ncp; return k; }
            }
        }
        // batch completed without crossing: record a strided
        // checkpoint (batch indices 0, stride, 2*stride, ...)
        // branch-free, see the note above
        --until_rec;
        const bool rec = (until_rec == 0);
        until_rec = rec ? stride : until_rec;
        cps[ncp] = cum;
        ncp += rec;
        i += kWalkBatch;
    }
    for (; i < count; ++i) {
        cum += exps[i];
        if (cum >= thr) { *cum_out = cum; *ncp_out = ncp; return i; }
    }
    *cum_out = cum;
    *ncp_out = ncp;
    return -1;
}

// Walk 2 with checkpoint skip: find the LAST checkpoint STRICTLY below
// thr (strict, so the crossing cannot lie before the resume point -
// cum_at_boundary == thr means the boundary element itself crossed),
// then batch-walk from there. Bit-identical to a full walk by the
// identical-prefix argument above.
__device__ int walk_from_cp(const float* __restrict__ exps, int count,
                            float thr, const float* cps, int ncp,
                            int stride) {
    if (ncp == 0 || cps[0] >= thr)
        return walk_from(exps, count, thr, 0, 0.0f);
    int l = 0, h = ncp - 1, j = 0;
    while (l <= h) {                 // last j with cps[j] < thr
        const int mid = (l + h) >> 1;
        if (cps[mid] < thr) { j = mid; l = mid + 1; }
        else h = mid - 1;
    }
    // only the found checkpoint is guaranteed < thr; resume strictly
    // AFTER its boundary: checkpoint j is recorded once batches
    // 0..(j+1)*stride-1 have completed, so it covers elements up to
    // (exclusive) a + (j+1)*stride*kWalkBatch - starting any earlier
    // would count the batches between the resume point and the
    // boundary twice (once in cps[j], once re-walked). stride == 1
    // reduces to the original one-past formula.
    const int a = (int)(((16u - (unsigned)(uintptr_t)exps) & 15u) >> 2);
    const int i0 = a + (j + 1) * stride * kWalkBatch;
    return walk_from(exps, count, thr, i0, cps[j]);
}

// checkpoint-array sizing for a window of `count` elements: the batch
// count, thinned by stride so the slots stay within kWalkCpMax
__host__ __device__ inline int walk_cp_slots(int count) {
    const int nb = (count + kWalkBatch - 1) / kWalkBatch;
    const int stride = (nb + kWalkCpMax - 1) / kWalkCpMax;
    const int ncp = (nb + stride - 1) / stride;
    return ncp;
}
__host__ __device__ inline int walk_cp_stride(int count) {
    const int nb = (count + kWalkBatch - 1) / kWalkBatch;
    return (nb + kWalkCpMax - 1) / kWalkCpMax;
}

// chunk sort + merge-ladder over the paired m-word key buffers in the
// selection workspace: sorts the first `count` keys of buffer A (the
// ladder ping-pongs between the halves) and returns the buffer holding
// the fully sorted keys. The other half (sort_keys_mate) is free
// scratch once the sort is done - the samplers stage their exp column
// there. Shared by topk / topp / sample_topp / decode_step / minp.
unsigned long long* sort_keys(unsigned long long* ws, int count, int m,
                              cudaStream_t cs) {
    chunk_sort_kernel<<<(int)((m + kSelSortChunk - 1) / kSelSortChunk),
                        kSelBlock, 0, cs>>>(ws + kWsKeys, count, m);
    check_launch("selection chunk sort launch");
    unsigned long long* bufs[2] = {ws + kWsKeys,
                                   ws + kWsKeys + (size_t)m};
    int cur = 0;
    for (int run = kSelSortChunk; run < m; run <<= 1) {
        const long long ntiles = m / kSelMergeTile;
        const int gmerge = (int)std::max<long long>(
            1LL, std::min<long long>(ntiles, kMaxGrid));
        merge_level_kernel<<<gmerge, kSelBlock, 0, cs>>>(bufs[cur],
                                                         bufs[cur ^ 1],
                                                         m, run);
        check_launch("selection merge launch");
        cur ^= 1;
    }
    return bufs[cur];
}

// the other half of the key area - free scratch once the sort is done
inline unsigned long long* sort_keys_mate(unsigned long long* ws, int m,
                                          const unsigned long long* sorted) {
    return (sorted == ws + kWsKeys) ? ws + kWsKeys + (size_t)m
                                    : ws + kWsKeys;
}
} // namespace

// Identical arithmetic and accumulation order to the in-finisher sample
// scan (and to the CPU reference): one thread walks the sorted keys. The
// serial walk is what keeps per-seed CPU/GPU token parity stable; big
// windows only occur for flat distributions (the host widening loop).
// `exps` carries the precomputed exp column (exp_window_kernel); the
// walk is two sequential passes - nucleus edge, then inverse-CDF - both
// batched for load pipelining (v1.2; the fadd order is untouched). Since
// v1.3 walk 1 records prefix-sum checkpoints in shared memory and walk 2
// resumes from a binary search over them - the resumed prefix is
// bit-identical (see walk_until_cp), so every token stays bit-identical
// to the scalar walk.
__global__ void sample_serial_kernel(const unsigned long long* __restrict__ keys,
                                     const float* __restrict__ exps,
                                     unsigned long long* __restrict__ ws,
                                     int k, int n, float p_stop,
                                     unsigned long long seed,
                                     int* token_out, int* count_out) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    extern __shared__ float cps[];   // walk checkpoints (walk_cp_slots)
    const int stride = walk_cp_stride(k);
    // threshold against the GLOBAL softmax total (exptotal_kernel) so a
    // window that cannot contain the nucleus reports "not covered"
    // instead of silently renormalizing (see exptotal_kernel note).
    // window == n with float-drift cum < p*total: the nucleus is
    // everything by definition - force coverage (matches the CPU
    // reference, which compares an identical serial accumulation).
    const float total = *reinterpret_cast<const float*>(&ws[kWsTotal]);
    float cum = 0.0f;
    int ncp = 0;
    const int edge = walk_until_cp(exps, k, p_stop * total, &cum, cps,
                                   stride, &ncp);
    if (edge < 0) {
        if (k < n) {              // window too small; host retries wider -
            // leave the window's whole cum mass for the host's
            // next-jump bound (widen_window)
            *reinterpret_cast<float*>(&ws[kWsCumW]) = cum;
            return;
        }
    }
    const int nucleus = (edge < 0) ? k : edge + 1;
    // walk_until_cp reports cum AT the crossing (covers the edge < 0
    // case too: full-window cum, exactly what the forced-coverage path
    // used)
    const float nucleus_mass = cum;
    const float u = splitmix_uniform(seed);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp, stride);
    // a float-boundary draw that never reaches target takes the last
    // nucleus element - the CPU reference's fallback (topk's walker
    // has always done this); without it the sentinel stays and the
    // host widens a window that already covers the nucleus
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
    if (count_out) *count_out = nucleus;
}

// ---------------------------------------------------------------------------
// sample-mode prerequisites: GLOBAL softmax mass
// ---------------------------------------------------------------------------

// Global max of the scaled logits as fkey bits (monotone unsigned order,
// so a plain integer atomicMax finds the float max of any-sign values).
__global__ void expmax_kernel(const float* __restrict__ x,
                              unsigned long long* __restrict__ ws,
                              int n, float inv_t, PenCtx pen) {
    __shared__ unsigned int warp_best[kSelWarps];
    unsigned int local = 0u;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        const unsigned int fk = fkey(step_logit(x, i, inv_t, pen));
        if (fk > local) local = fk;
    }
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        local = max(local, __shfl_down_sync(0xffffffffu, local, off));
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) warp_best[warp] = local;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int b = warp_best[0];
        #pragma unroll
        for (int w = 1; w < kSelWarps; ++w) b = max(b, warp_best[w]);
        atomicMax(&ws[kWsExpMax], (unsigned long long)b);
    }
}

// Global softmax total: sum of __expf(v - max) over ALL n logits. The
// nucleus threshold must use the GLOBAL mass - a window-local total
// silently renormalizes the softmax and shrinks the nucleus whenever the
// distribution is flat enough that the tail carries real mass (bug found
// by the v0.4 widening test; v0.3 had the same flaw). Launched right
// after expmax_kernel: the kernel boundary publishes the max.
__global__ void exptotal_kernel(const float* __restrict__ x,
                                unsigned long long* __restrict__ ws,
                                int n, float inv_t, PenCtx pen) {
    const float row_max = unfkey((unsigned)ws[kWsExpMax]);
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        s += __expf(step_logit(x, i, inv_t, pen) - row_max);
    __shared__ float warp_sum[kSelWarps];
    s = warp_reduce_sum(s);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) warp_sum[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        #pragma unroll
        for (int w = 0; w < kSelWarps; ++w) t += warp_sum[w];
        atomicAdd(reinterpret_cast<float*>(&ws[kWsTotal]), t);
    }
}

// mass_stats_kernel row-decomposed (v1.8): one full-row read producing
// the row's total (totals), entropy accumulator (svals) and nsigma
// moments (n1vals/n2vals, doubles) - replaces the exptotal_b +
// entropy_b + nsigma_stats_b sequence for the entropy-family modes
// with each output's accumulation pattern untouched (bit-identical
// tokens; see the single-row note).
__global__ void mass_stats_b_kernel(const float* __restrict__ x,
                                    unsigned long long* __restrict__ ws,
                                    long long stride, int n, float inv_t,
                                    float* __restrict__ totals,
                                    float* __restrict__ svals,
                                    double* __restrict__ n1vals,
                                    double* __restrict__ n2vals,
                                    int gpr,
                                    const int* __restrict__ active) {
    const int row = blockIdx.x / gpr;
    if (!active[row]) return;
    const int lid = blockIdx.x % gpr;
    const float* x_row = x + (size_t)row * n;
    unsigned long long* ws_row = ws + (size_t)row * stride;
    const float row_max = unfkey((unsigned)ws_row[kWsExpMax]);
    float total = 0.0f, s = 0.0f, s1 = 0.0f, s2 = 0.0f;
    for (int i = lid * blockDim.x + threadIdx.x; i < n;
         i += gpr * blockDim.x) {
        const float lv = x_row[i] * inv_t - row_max;
        const float e = __expf(lv);
        total += e;
        s += e * lv;
        s1 += lv;
        s2 += lv * lv;
    }
    __shared__ float warp_total[kSelWarps];
    __shared__ float warp_s[kSelWarps];
    __shared__ float warp_s1[kSelWarps];
    __shared__ float warp_s2[kSelWarps];
    total = warp_reduce_sum(total);
    s = warp_reduce_sum(s);
    s1 = warp_reduce_sum(s1);
    s2 = warp_reduce_sum(s2);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) {
        warp_total[warp] = total;
        warp_s[warp] = s;
        warp_s1[warp] = s1;
        warp_s2[warp] = s2;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float bt = 0.0f, bs = 0.0f, bs1 = 0.0f, bs2 = 0.0f;
        #pragma unroll
        for (int w = 0; w < kSelWarps; ++w) {
            bt += warp_total[w];
            bs += warp_s[w];
            bs1 += warp_s1[w];
            bs2 += warp_s2[w];
        }
        atomicAdd(&totals[row], bt);
        atomicAdd(&svals[row], bs);
        atomicAdd(&n1vals[row], (double)bs1);
        atomicAdd(&n2vals[row], (double)bs2);
    }
}

// Fused mass + stats pass (v1.8): ONE full-vocabulary read producing
// every scalar the entropy-family samplers consume - the softmax total
// (kWsTotal, for top-a's cutoff and every widening bound), the entropy
// accumulator (kWsEtaS, for eta's / typical's band), and the nsigma
// moments (kWsNsS1/S2, doubles). Replaces the exptotal + entropy +
// nsigma_stats sequence (up to three full reads of x) for eta /
// typical / nsigma: eta and typical run 2 mass launches per attempt
// instead of 3, nsigma 2 instead of 3, and every consumer's
// accumulation pattern is untouched (each output keeps its own
// per-thread serial adds, warp reduction and atomic commit with the
// same operand values - the shared __expf(lv) is the exact quantity
// the standalone kernels each computed), so every sampled token is
// bit-identical to the unfused sequence.
__global__ void mass_stats_kernel(const float* __restrict__ x,
                                  unsigned long long* __restrict__ ws,
                                  int n, float inv_t, PenCtx pen) {
    const float row_max = unfkey((unsigned)ws[kWsExpMax]);
    float total = 0.0f, s = 0.0f, s1 = 0.0f, s2 = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        const float lv = step_logit(x, i, inv_t, pen) - row_max;
        const float e = __expf(lv);
        total += e;
        s += e * lv;
        s1 += lv;
        s2 += lv * lv;
    }
    __shared__ float warp_total[kSelWarps];
    __shared__ float warp_s[kSelWarps];
    __shared__ float warp_s1[kSelWarps];
    __shared__ float warp_s2[kSelWarps];
    total = warp_reduce_sum(total);
    s = warp_reduce_sum(s);
    s1 = warp_reduce_sum(s1);
    s2 = warp_reduce_sum(s2);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) {
        warp_total[warp] = total;
        warp_s[warp] = s;
        warp_s1[warp] = s1;
        warp_s2[warp] = s2;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float bt = 0.0f, bs = 0.0f, bs1 = 0.0f, bs2 = 0.0f;
        #pragma unroll
        for (int w = 0; w < kSelWarps; ++w) {
            bt += warp_total[w];
            bs += warp_s[w];
            bs1 += warp_s1[w];
            bs2 += warp_s2[w];
        }
        atomicAdd(reinterpret_cast<float*>(&ws[kWsTotal]), bt);
        atomicAdd(reinterpret_cast<float*>(&ws[kWsEtaS]), bs);
        atomicAdd(reinterpret_cast<double*>(&ws[kWsNsS1]), (double)bs1);
        atomicAdd(reinterpret_cast<double*>(&ws[kWsNsS2]), (double)bs2);
    }
}

// Finalize launch (after the eight round launches):
//   stage 2 - nothing to do (early exit already settled k_min)
//   stage 0 - eight full rounds completed: the prefix already IS the
//             full k-th key and remaining already collapsed to 1 (keys
//             are unique) - just publish the settled state
//   stage 1 - early exit fired: COMPACT the survivors (every key matching
//             the refined prefix) into the candidate buffer; the last
//             block sorts them in shared memory and publishes k_min /
//             tie_take = 1. Keeping this stage out of the round kernel
//             lets the rounds run with 2KB of static shared memory
//             (higher occupancy) and only this kernel pays the 16KB.
__global__ void select_finalize_kernel(const SelArgs* __restrict__ a,
                                       unsigned long long* __restrict__ ws,
                                       int n, float inv_t, PenCtx pen) {
    __shared__ int sh_ticket;
    const unsigned long long stage = ws[kWsStage];
    if (stage == 2ULL) return;
    if (stage == 0ULL) {
        if (threadIdx.x == 0 && blockIdx.x == 0) ws[kWsStage] = 2ULL;
        return;
    }

    const float* __restrict__ x = a->x;
    unsigned long long* ticket = ws + kWsTicket;
    const unsigned long long prefix = ws[kWsPrefix];
    const int level_done = (int)ws[kWsLevelDone];
    // prefix covers bytes [level_done..7]; match exactly those bytes
    // (shift by 8*level_done: 0 for a fully refined prefix, 56 for a
    // single high byte - no undefined shifts either way)
    const unsigned long long mask =
        ~((1ULL << (8 * level_done)) - 1ULL);
    unsigned long long* cand = ws + kWsCand;
    unsigned long long* cand_cnt = ws + kWsCandCnt;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        const unsigned long long key = pack_key(step_logit(x, i, inv_t, pen), i);
        if ((key & mask) == prefix) {
            const unsigned long long pos = atomicAdd(cand_cnt, 1ULL);
            // survivors <= kSelEarlyOut is guaranteed by the early-exit
            // condition; the bound keeps a bug from smashing memory
            if (pos < (unsigned long long)kSelEarlyOut) cand[pos] = key;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();                            // publish my stores
        sh_ticket = (int)atomicAdd(ticket, 1ULL);
    }
    __syncthreads();
    if (sh_ticket != (int)gridDim.x - 1) return;    // finisher = last block
    __threadfence();                                // acquire: cand visible

    int cnt = (int)(
        *(const volatile unsigned long long*)&ws[kWsCandCnt]);
    if (cnt > kSelEarlyOut) cnt = kSelEarlyOut;     // defensive clamp
    const unsigned long long remaining = ws[kWsRemaining];
    __shared__ unsigned long long sk[kSelEarlyOut];
    int len = 1;
    while (len < cnt) len <<= 1;
    const volatile unsigned long long* vcand =
        (const volatile unsigned long long*)cand;
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        sk[i] = (i < cnt) ? vcand[i] : 0ULL;
    __syncthreads();
    bitonic_desc_shared(sk, len);
    // The remaining-th largest survivor is the k-th largest key overall;
    // every full key is unique, so exactly one key equals it.
    ws[kWsPrefix] = sk[remaining - 1];
    ws[kWsRemaining] = 1ULL;
    ws[kWsStage] = 2ULL;
    *ticket = 0ULL;                                  // defensive reset
}

// Device-side argument loader: writes the per-call pointers into the
// args block. Used ONLY on the outer-capture path, where the pointers
// ride as kernel parameters and get baked into the CALLER'S graph (the
// torch.cuda.graph contract: captures use fixed tensors, replays mutate
// them in place). One thread, one 32-byte store - effectively free.
__global__ void set_args_kernel(SelArgs* __restrict__ dargs,
                                const float* x, float* vals,
                                long long* idxs, int* count_out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        dargs->x = x;
        dargs->vals = vals;
        dargs->idxs = idxs;
        dargs->count_out = count_out;
    }
}

// ---------------------------------------------------------------------------
// shared launcher plumbing
// ---------------------------------------------------------------------------

// ~4 elements per thread: small inputs launch ONE resident wave (the
// arrival-ticket tail dominates when blocks are cheap and many), large
// inputs cap at kMaxGrid with grid-stride loops covering the rest.
int selection_grid(int n) {
    long long want = (n + 4 * kSelBlock - 1) / (4 * kSelBlock);
    return (int)std::max<long long>(1LL, std::min<long long>(want, kMaxGrid));
}

// The full pipeline as plain stream-ordered launches (device args block
// already populated). Used directly when the caller's stream is being
// captured by an OUTER graph (torch.cuda.graph) - in that case `src` is
// non-null and a one-thread loader kernel bakes this call's pointers
// into the caller's graph as its leading node - and once per (n, k,
// mode) to record our internal cached graph (src == nullptr; the args
// arrive through the per-call H2D ring copy instead).
constexpr PenCtx kNoPen{nullptr, 1.0f, 0};

void select_raw_pipeline(const SelArgs* dargs, unsigned long long* ws,
                         int n, int k, int m, bool with_nucleus,
                         cudaStream_t cs, const SelArgs* src = nullptr,
                         PenCtx pen = kNoPen) {
    if (src)
        set_args_kernel<<<1, 32, 0, cs>>>(
            const_cast<SelArgs*>(dargs), src->x, src->vals, src->idxs,
            src->count_out);
    const int grid = selection_grid(n);
    // per-call state reset
    checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
    for (int level = 7; level >= 0; --level)
        select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
            dargs, ws, n, level, (unsigned long long)k, 1.0f, pen);
    // finalize: compacts when the early exit fired, otherwise just
    // publishes the settled state (prefix == full k-th key)
    select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, 1.0f, pen);
    check_launch("selection round launch");

    if (k <= kSelEarlyOut) {
        emit_finish_kernel<<<grid, kSelBlock, 0, cs>>>(
            dargs, ws, n, k, 1.0f, 0ULL, /*sample=*/0, pen);
        check_launch("selection emit+finish launch");
        return;
    }

    emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, k, 1.0f, pen);
    unsigned long long* sorted = sort_keys(ws, k, m, cs);
    decode_kernel<<<selection_grid(k), kSelBlock, 0, cs>>>(dargs, sorted,
                                                           k);
    check_launch("selection decode launch");

    if (with_nucleus) {
        float* partials = reinterpret_cast<float*>(
            ws + kWsKeys + 2 * (size_t)m);
        const int gsum = (int)std::max<long long>(
            1LL, std::min<long long>((k + kSelBlock - 1) / kSelBlock,
                                     kMaxGrid));
        const int per = (k + gsum - 1) / gsum;
        topp_partial_kernel<<<gsum, kSelBlock, 0, cs>>>(sorted, partials,
                                                        k, per);
        topp_crossing_kernel<<<1, kSelBlock, 0, cs>>>(dargs, sorted,
                                                      partials, k, per,
                                                      gsum);
        check_launch("selection nucleus count launch");
    }
}

// ---------------------------------------------------------------------------
// internal graph cache
// ---------------------------------------------------------------------------

// One cached executable graph per (n, k, mode, workspace). Capture runs
// on a private side stream (capturing on the caller's stream is illegal
// when it is the legacy default stream); replay always targets the
// caller's stream, which orders it with surrounding work. The graph
// nodes reference only fixed workspace addresses plus the device args
// block, so replays pick up fresh pointers through the per-call H2D
// copy. The stage-machine kernels read their state from the workspace at
// runtime, so a fixed launch sequence stays correct for every input.
struct SelGraph {
    cudaGraphExec_t exec = nullptr;
};
using SelGraphKey = std::tuple<int, int, int, unsigned long long*>;

cudaStream_t capture_stream() {
    static cudaStream_t s = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        if (cudaStreamCreate(&s) != cudaSuccess)
            throw std::runtime_error(std::string("capture stream create failed: ") +
                                     cudaGetErrorString(cudaGetLastError()));
    });
    return s;
}

// Bounded cache: decode loops use a handful of shapes; clear everything
// if pathological call patterns ever exceed the cap.
cudaGraphExec_t cached_graph(const SelGraphKey& key,
                             const std::function<void(cudaStream_t)>& record) {
    static std::mutex mu;
    static std::map<SelGraphKey, SelGraph> cache;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end())
        return it->second.exec;
    if (cache.size() >= 64) {
        for (auto& kv : cache)
            if (kv.second.exec) cudaGraphExecDestroy(kv.second.exec);
        cache.clear();
    }
    cudaStream_t cs = capture_stream();
    if (cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal) != cudaSuccess)
        throw std::runtime_error(std::string("graph capture begin failed: ") +
                                 cudaGetErrorString(cudaGetLastError()));
    record(cs);
    cudaGraph_t graph = nullptr;
    if (cudaStreamEndCapture(cs, &graph) != cudaSuccess || !graph)
        throw std::runtime_error(std::string("graph capture end failed: ") +
                                 cudaGetErrorString(cudaGetLastError()));
    cudaGraphExec_t exec = nullptr;
    if (cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0) != cudaSuccess || !exec) {
        cudaGraphDestroy(graph);
        throw std::runtime_error(std::string("graph instantiate failed: ") +
                                 cudaGetErrorString(cudaGetLastError()));
    }
    cudaGraphDestroy(graph);
    cache.emplace(key, SelGraph{exec});
    return exec;
}

// Rounds + finalize + the right emit/sort/decode tail for the given k.
// p_stop > 0 requests the nucleus count (top-p mode; vals are already
// probabilities, so the mass scan sums them directly). Sampling lives in
// sample_topp_launch, which drives its own (windowed) sequence.
void select_common(const float* x, float* vals, long long* idxs,
                   int* count_out, int n, int k, float p_stop,
                   std::uintptr_t stream) {
    cudaStream_t cs = (cudaStream_t)stream;
    int m = 1;
    while (m < k) m <<= 1;                        // sort pad size
    // candidates + two m-word key buffers + kMaxGrid floats of scan
    // scratch + the per-call args block
    unsigned long long* ws =
        selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m + kWsScanWords +
                            sizeof(SelArgs) / sizeof(unsigned long long));
    SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
    // outer capture in progress (torch.cuda.graph): contribute the raw
    // kernels to the caller's graph, with a loader node that re-installs
    // the capture-time pointers on every replay (torch's fixed-tensor
    // contract). No host allocations or event queries happen here - both
    // are illegal mid-capture.
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(cs, &cap) != cudaSuccess)
        cap = cudaStreamCaptureStatusNone;
    if (cap == cudaStreamCaptureStatusActive) {
        const SelArgs tmp{x, vals, idxs, count_out, p_stop};
        select_raw_pipeline(dargs, ws, n, k, m, p_stop > 0.0f, cs, &tmp);
        return;
    }
    ship_args(cs, dargs, x, vals, idxs, count_out, p_stop);

    const int mode = p_stop > 0.0f ? 1 : 0;
    cudaGraphExec_t exec = cached_graph(
        SelGraphKey(n, k, mode, ws),
        [&](cudaStream_t rec) {
            select_raw_pipeline(dargs, ws, n, k, m, mode == 1, rec);
        });
    if (cudaGraphLaunch(exec, cs) != cudaSuccess)
        throw std::runtime_error(std::string("selection graph launch failed: ") +
                                 cudaGetErrorString(cudaGetLastError()));
}

} // namespace

// ---------------------------------------------------------------------------
// public entry points (signatures unchanged from v0.1)
// ---------------------------------------------------------------------------

std::pair<std::vector<float>, std::vector<long long>>
topk_cpu(const std::vector<float>& x, int k) {
    topk_check(x, k);
    std::vector<float> vals;
    std::vector<long long> idxs;
    std::vector<char> taken(x.size(), 0);
    for (int sel = 0; sel < k; ++sel) {
        int best = -1;
        for (size_t i = 0; i < x.size(); ++i) {
            if (taken[i]) continue;
            if (best == -1 || x[i] > x[best]) best = (int)i;
        }
        taken[best] = 1;
        idxs.push_back(best);
        vals.push_back(x[best]);
    }
    return {std::move(vals), std::move(idxs)};
}

void topk_launch(const float* x, float* vals, long long* idxs,
                 int n, int k, std::uintptr_t stream) {
    if (k <= 0 || n <= 0) return;
    select_common(x, vals, idxs, nullptr, n, k, 0.0f, stream);
}

std::pair<std::vector<float>, std::vector<long long>>
topp_cpu(const std::vector<float>& probs, float p) {
    if (!(p > 0.0f && p <= 1.0f))
        throw std::invalid_argument("p must be in (0, 1]");
    auto [vals, idxs] = topk_cpu(probs, static_cast<int>(probs.size()));
    float cum = 0.0f;
    size_t keep = 0;
    for (size_t i = 0; i < vals.size(); ++i) {
        cum += vals[i];
        keep = i + 1;
        if (cum >= p) break;
    }
    vals.resize(keep);
    idxs.resize(keep);
    return {std::move(vals), std::move(idxs)};
}

void topp_select_launch(const float* x, float* vals, long long* idxs,
                        int n, float p, int* count_out, std::uintptr_t stream) {
    if (n <= 0) {
        if (count_out) {
            // stream-ordered zero (a blocking cudaMemcpy would run on
            // the NULL stream and sync the device, ignoring the
            // caller's stream - the tail of the 1.0 fast path)
            static const int zero = 0;
            if (cudaMemcpyAsync(count_out, &zero, sizeof(int),
                                cudaMemcpyHostToDevice,
                                (cudaStream_t)stream) != cudaSuccess)
                throw std::runtime_error(
                    std::string("topp zero-count upload failed: ") +
                    cudaGetErrorString(cudaGetLastError()));
        }
        return;
    }
    select_common(x, vals, idxs, count_out, n, n, p, stream);
}

// Widening lower bounds (v1.4.1): the single-place formulas behind
// widen_window / widen_window_minp and the batched widen loop, so the
// three users cannot drift apart (the batched sequencer inlined a
// copy-paste of each in 1.4.0). Both take the failed window width W,
// its cum mass C and the global max-normalized total T; both return a
// necessary/sufficient next-window bound (see the callers for which).
static inline long long topp_widen_bound(int window, double p,
                                         double total, double c) {
    if (c > 0.0 && p * total > c)
        return (long long)std::ceil((double)window * p * total / c) + 1;
    return (long long)std::ceil(p * total) + 1;
}

static inline long long minp_widen_bound(int window, double min_p,
                                         double total, double c) {
    if (total > 0.0 && total - c > 0.0)
        return (long long)std::ceil((total - c) / min_p) + window + 1;
    return (long long)window + 1;      // floor if T - C <= 0
}

// Adaptive widening jump (v1.2). After a window attempt fails to cover
// the nucleus, two floats the attempt already produced steer the next
// window size (one 16-byte readback of the kWsTotal/kWsCumW workspace
// words - each value lives in the LOW half of its own u64 word, so
// both words are copied and their low halves reinterpreted):
//   T = GLOBAL softmax total (exptotal_kernel, max-normalized: the
//       largest exp is exactly 1.0f)
//   C = whole-window cum mass (stored by the sampling tail on failure)
// Every element past rank W is at most C/W (the smallest of the top-W
// exps bounds the rest, and it is at most their average), so covering
// the remaining p*T - C mass needs at least (p*T - C)*W/C further
// elements: w >= ceil(W * p * T / C) - a necessary lower bound that is
// TIGHT for flat distributions (all exps ~ 1 -> w ~ p*n, one jump to
// (nearly) the full vocabulary) and still useful on heavy tails like a
// plain randn (max-normalization flattens everything but the extreme
// tail, so the nucleus is surprisingly wide). The x8 ladder step stays
// as the floor, so mid-tailed distributions never regress. The bound is
// rounded up to a power of two for slack against float drift - a
// hair-miss would otherwise cost one more full attempt. The sampled
// token is independent of the jump schedule (the threshold uses the
// global mass and the draw renormalizes inside the nucleus): only the
// retry count changes, which is what this saves.
static int widen_window(int window, int n, float p,
                        const unsigned long long* ws) {
    // v1.3.1: the readback copies TWO u64 words (kWsTotal, kWsCumW) and
    // takes the low float of each - the previous 8-byte copy fetched
    // only word 265, so mass[1] read the never-written high half and
    // the adaptive bound below never fired (widening silently fell
    // back to the plain ceil(p*total)+1 estimate, costing extra retry
    // rounds on mid-tailed distributions)
    unsigned long long massw[2] = {0ULL, 0ULL};
    if (cudaMemcpy(massw, ws + kWsTotal, 2 * sizeof(*ws),
                    cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("sample mass readback failed");
    const float mass[2] = {
        *reinterpret_cast<const float*>(&massw[0]),   // global total
        *reinterpret_cast<const float*>(&massw[1]),   // window cum
    };
    const long long lb = topp_widen_bound(window, (double)p,
                                          (double)mass[0],
                                          (double)mass[1]);
    const long long want = std::max<long long>((long long)window * 8, lb);
    if (want >= n) return n;
    int mp = 1;                       // pow2 headroom over the bound
    while (mp < want) mp <<= 1;
    return std::min(n, mp);
}

// Adaptive widening jump for min-p (v1.4). The nucleus is a VALUE
// threshold (every element with exp >= min_p passes), so the top-p mass
// bound does not transfer directly - but the max-normalized GLOBAL total
// T (host-cached from a one-time expmax+exptotal pass) closes the gap:
// on a failed window of W elements with cum mass C, every element past
// rank W is at most exps[W-1], and every element of the nucleus past
// rank W is at least min_p, so at most (T - C) / min_p further elements
// can pass. w >= W + ceil((T - C) / min_p) + 1 therefore ALWAYS covers
// the nucleus - a sufficient bound (top-p's is merely necessary), tight
// for wide nuclei: a flat distribution (all exps ~ 1, T ~ n) jumps to
// (nearly) the full vocabulary in one step. The x8 ladder stays as the
// floor (small T - C, e.g. a heavy-tailed distribution whose window
// already carries almost all mass), and the pow2 rounding adds slack
// against the float drift between the parallel-tree T and the serial-walk
// C (a hair-miss would only cost one more attempt, never correctness).
// The sampled token is independent of the jump schedule: the nucleus
// membership is a property of the full distribution, and the draw
// renormalizes inside it.
static int widen_window_minp(int window, int n, float min_p, double total,
                             const unsigned long long* ws) {
    unsigned long long cw = 0ULL;
    if (cudaMemcpy(&cw, ws + kWsCumW, sizeof(cw),
                   cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("min-p mass readback failed");
    const double c = (double)*reinterpret_cast<const float*>(&cw);
    const long long lb = minp_widen_bound(window, (double)min_p, total, c);
    const long long want = std::max<long long>((long long)window * 8, lb);
    if (want >= n) return n;
    int mp = 1;                       // pow2 headroom over the bound
    while (mp < want) mp <<= 1;
    return std::min(n, mp);
}

// Adaptive widening jump for top-a: the nucleus is again a VALUE
// threshold on the normalized probability (p_i >= top_a * p_max^2), so
// min-p's sufficient mass bound transfers with the divisor replaced by
// the cutoff IN EXP UNITS - top_a / total (for min-p that divisor is
// exactly min_p because the max exp is 1). The host derives it from the
// same total the walker used, host-cached after the one-time mass pass
// (global total T is retry-invariant); the only fresh readback is the
// failed window's cum mass C (kWsCumW). The cutoff derives from floats
// the parallel tree produced, so the pow2 rounding adds slack against
// a hair-miss (one more attempt, never correctness).
static int widen_window_topa(int window, int n, float top_a, double total,
                             const unsigned long long* ws) {
    unsigned long long cw = 0ULL;
    if (cudaMemcpy(&cw, ws + kWsCumW, sizeof(cw),
                   cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("top-a mass readback failed");
    const double c = (double)*reinterpret_cast<const float*>(&cw);
    const long long lb =
        minp_widen_bound(window, (double)top_a / total, total, c);
    const long long want = std::max<long long>((long long)window * 8, lb);
    if (want >= n) return n;
    int mp = 1;                       // pow2 headroom over the bound
    while (mp < want) mp <<= 1;
    return std::min(n, mp);
}
// Adaptive widening jump for mirostat (v2.5): the nucleus threshold in
// exp units is 2^-mu * total, so the same mass bound as min-p applies
// with that derived threshold. A very large mu drives the threshold to
// zero (every token qualifies) - the bound degenerates and the honest
// x8 ladder floor carries the widening.
static int widen_window_mirostat(int window, int n, float mu,
                                 double total,
                                 const unsigned long long* ws) {
    unsigned long long cw = 0ULL;
    if (cudaMemcpy(&cw, ws + kWsCumW, sizeof(cw),
                   cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("mirostat mass readback failed");
    const double c = (double)*reinterpret_cast<const float*>(&cw);
    const double thr = std::exp2((double)-mu) * total;
    long long lb = (long long)window + 1;
    if (thr > 0.0)
        lb = minp_widen_bound(window, thr, total, c);
    const long long want = std::max<long long>((long long)window * 8, lb);
    if (want >= n) return n;
    int mp = 1;                       // pow2 headroom over the bound
    while (mp < want) mp <<= 1;
    return std::min(n, mp);
}

// Adaptive widening jump for top-n-sigma: the nucleus is a VALUE
// threshold on the temperature-scaled logit (l_i >= mu - nsigma *
// sigma), so min-p's sufficient mass bound transfers with the divisor
// replaced by the cutoff IN EXP UNITS - exp(mu - nsigma * sigma - max)
// = exp(mu_d - nsigma * sigma_d) (max-independent). The host derives
// it from the same accumulators the walker used, host-cached after the
// one-time mass pass (s1, s2 and the global total T are
// retry-invariant); the only fresh readback is the failed window's cum
// mass C (kWsCumW). The cutoff derives from floats the parallel tree
// produced, so the pow2 rounding adds slack against a hair-miss (one
// more attempt, never correctness).
static int widen_window_nsigma(int window, int n, float nsigma,
                               double total, double s1, double s2,
                               const unsigned long long* ws) {
    unsigned long long cw = 0ULL;
    if (cudaMemcpy(&cw, ws + kWsCumW, sizeof(cw),
                   cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("nsigma mass readback failed");
    const double c = (double)*reinterpret_cast<const float*>(&cw);
    const double mu_d = s1 / (double)n;
    const double sigma =
        std::sqrt(std::fmax(s2 / (double)n - mu_d * mu_d, 0.0));
    const double thr_e = std::exp(mu_d - (double)nsigma * sigma);
    const long long lb = minp_widen_bound(window, thr_e, total, c);
    const long long want = std::max<long long>((long long)window * 8, lb);
    if (want >= n) return n;
    int mp = 1;                       // pow2 headroom over the bound
    while (mp < want) mp <<= 1;
    return std::min(n, mp);
}

// Adaptive widening jump for eta-cutoff (v1.6): the nucleus is again a
// VALUE threshold on the normalized probability
// (p_i >= eta * min(1, exp(-H))), so min-p's sufficient mass bound
// transfers with min_p replaced by the cutoff IN EXP UNITS - the
// bound's divisor is the per-element exp contribution, i.e. the
// probability cutoff times the global total (for min-p that product
// is exactly min_p because the max exp is 1). The host
// derives the cutoff from the same quantities the walker used, all
// host-cached after the one-time mass pass (global total T, entropy
// accumulator s: H = log(T) - s / T); the only fresh readback is the
// failed window's cum mass C (kWsCumW). The cutoff derives from floats
// the parallel tree produced, so the pow2 rounding adds slack against
// a hair-miss (one more attempt, never correctness).
static int widen_window_eta(int window, int n, float eta, double total,
                            double s_acc, const unsigned long long* ws) {
    unsigned long long cw = 0ULL;
    if (cudaMemcpy(&cw, ws + kWsCumW, sizeof(cw),
                   cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("eta mass readback failed");
    const double c = (double)*reinterpret_cast<const float*>(&cw);
    const double h = std::log(total) - s_acc / total;
    const double thr = (double)eta * std::fmin(1.0, std::exp(-h));
    const long long lb =
        minp_widen_bound(window, thr * total, total, c);
    const long long want = std::max<long long>((long long)window * 8, lb);
    if (want >= n) return n;
    int mp = 1;                       // pow2 headroom over the bound
    while (mp < want) mp <<= 1;
    return std::min(n, mp);
}

// ---------------------------------------------------------------------------
// fused nucleus sampling: softmax(logits/T) -> nucleus(p) -> inverse-CDF
// draw from a hash-derived uniform. The token comes back through a
// workspace slot with a host readback (this launcher is intentionally
// NOT CUDA-graph capturable - the widening loop needs the result).
// (CPU reference: sample_topp_cpu in sampling.cu, declared in
// activations.hpp)
// ---------------------------------------------------------------------------

long long sample_topp_launch(const float* x, int n, float p, float t,
                             unsigned long long seed, std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(p > 0.0f && p <= 1.0f))
        throw std::invalid_argument("p must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    // Widening-window strategy: sort only the top-M candidates (M starts
    // at the early-exit/in-block-sort size), sample within them; if the
    // nucleus is not covered by the window, retry wider - adaptively via
    // the p*T mass bound (widen_window). Typical distributions are
    // covered by the first window.
    int window = std::min(kSelEarlyOut, n);
    const float inv_t = 1.0f / t;
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;
        // Grow the workspace BEFORE presetting the token slot: the growth
        // would otherwise free the buffer the slot lives in.
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m + kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        cudaStream_t cs = (cudaStream_t)stream;
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        // reset the control head FIRST, then preset the token sentinel
        // (the memset would otherwise wipe it), then ship the args
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, p);
        const int grid = selection_grid(n);
        // Full-vocabulary fast path (v1.2): when the window covers the
        // whole vocabulary every key survives, so the radix rounds and
        // the finalize are pure waste - emit_kernel's k==n branch (a
        // plain parallel pack) is all the "selection" that is needed.
        // The sort / exp / serial-walk tail below is unchanged, so the
        // accumulation order (and therefore every sampled token) stays
        // exactly what the full pipeline produced.
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window, inv_t,
                    kNoPen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n,
                                                               inv_t,
                                                               kNoPen);
        }
        // global softmax mass (max, then total): the nucleus threshold
        // must be global, not window-local (see exptotal_kernel)
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        exptotal_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        check_launch("sample round launch");
        if (!full && window <= kSelEarlyOut) {
            emit_finish_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, window, inv_t, seed, /*sample=*/1, kNoPen);
            check_launch("sample emit+finish launch");
        } else {
            // partial window: two-level emit; full window: emit's k==n
            // branch degenerates to the parallel pack (see above)
            emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                    inv_t, kNoPen);
            unsigned long long* sorted = sort_keys(ws, window, m, cs);
            // parallel exp precompute; the serial walk then only adds
            float* exps =
                reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
            exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
                sorted, exps, window);
            sample_serial_kernel<<<1, 32,
                                   walk_cp_slots(window) * sizeof(float),
                                   cs>>>(
                sorted, exps, ws, window, n, p, seed,
                token_out, nullptr);
            check_launch("sample tail launch");
        }
        cudaError_t err = cudaStreamSynchronize(cs);   // surface kernel faults
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("sample kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("sample result readback failed");
        if (token >= 0)
            return token;                  // nucleus covered, token sampled
        if (window == n)
            throw std::runtime_error("sample nucleus not covered");
        window = widen_window(window, n, p, ws);  // widen and retry
    }
}

// ---------------------------------------------------------------------------
// fused decode step: repetition penalty -> temperature -> nucleus sample
// ---------------------------------------------------------------------------

// One call from raw logits to the next token. The penalty set becomes a
// vocab bitmap (one kernel), then the SAME selection pipeline runs with
// a penalty-aware key-packing: every site that reads a logit applies
// penalty (to the raw value, matching the composed reference order)
// then the temperature scale. No cached graphs here - the penalty rides
// as a kernel parameter, and this launcher has an inherent host
// readback anyway (same contract as sample_topp).
long long decode_step_launch(const float* x, const long long* ids,
                             int n, int m, float penalty, float p, float t,
                             unsigned long long seed, std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("decode_step of empty logits");
    if (m < 0)
        throw std::invalid_argument("sampled_ids size must be >= 0");
    if (!(penalty > 0.0f))
        throw std::invalid_argument("penalty must be > 0");
    if (!(p > 0.0f && p <= 1.0f))
        throw std::invalid_argument("p must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    const size_t bitmap_words = ((size_t)n + 63) / 64;
    const int use_pen = (m > 0 && penalty != 1.0f) ? 1 : 0;

    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int mm = 1;
        while (mm < window) mm <<= 1;
        unsigned long long* ws = selection_workspace(
            (size_t)kSelEarlyOut + 2 * (size_t)mm + kWsScanWords + bitmap_words +
            sizeof(SelArgs) / sizeof(unsigned long long));
        // bitmap lives right after the args block; it must be zeroed on
        // every (re)try because the marking kernel ORs bits in - zero
        // the whole span from the head through the bitmap (the buffers
        // in between do not need it, but one contiguous clear is cheaper
        // than two async memsets)
        unsigned long long* bm = ws + sel_args_off(mm) +
                                 sizeof(SelArgs) / sizeof(unsigned long long);
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(mm));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws,
                             (size_t)(bm - ws + bitmap_words) *
                                 sizeof(unsigned long long),
                             cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice, cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, p);
        const PenCtx pen{bm, penalty, use_pen};
        if (use_pen)
            penalty_bitmap_kernel<<<(int)((m + kSelBlock - 1) / kSelBlock),
                                    kSelBlock, 0, cs>>>(ids, m, n, bm);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        // full-vocabulary fast path: same rationale as sample_topp (the
        // radix rounds cannot discard anything when window == n)
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window, inv_t,
                    pen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n,
                                                               inv_t, pen);
        }
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, pen);
        exptotal_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, pen);
        check_launch("decode step round launch");
        if (!full && window <= kSelEarlyOut) {
            emit_finish_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, window, inv_t, seed, /*sample=*/1, pen);
            check_launch("decode step finish launch");
        } else {
            // partial window: two-level emit; full window: emit's k==n
            // branch degenerates to the parallel pack
            emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                    inv_t, pen);
            unsigned long long* sorted = sort_keys(ws, window, mm, cs);
            // parallel exp precompute; the serial walk then only adds
            float* exps =
                reinterpret_cast<float*>(sort_keys_mate(ws, mm, sorted));
            exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
                sorted, exps, window);
            sample_serial_kernel<<<1, 32,
                                   walk_cp_slots(window) * sizeof(float),
                                   cs>>>(
                sorted, exps, ws, window, n, p, seed,
                token_out, nullptr);
            check_launch("decode step tail launch");
        }
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("decode step kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("decode step readback failed");
        if (token >= 0)
            return token;
        if (window == n)
            throw std::runtime_error("decode step nucleus not covered");
        window = widen_window(window, n, p, ws);  // same adaptive jump
    }
}

// ---------------------------------------------------------------------------
// fused top-k sampling: softmax temperature-scale, top-k truncation,
// renormalize WITHIN the k survivors, inverse-CDF draw - one readback
// ---------------------------------------------------------------------------

// Serial draw over the sorted top-k keys (one thread, one pass): the
// top-k window is ALWAYS covered by construction (the distribution is
// renormalized inside it), so - unlike the nucleus sampler - there is no
// global-mass threshold, no coverage check and no widening loop. Same
// arithmetic and accumulation order as the CPU reference: exp walk
// seeded at the row max, splitmix64 hash of the seed, serial inverse
// CDF - per-seed CPU/GPU token parity is bit-stable away from draws
// landing exactly on an exp-rounding boundary.
__global__ void sample_topk_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps, int* __restrict__ token_out,
    int k, unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    extern __shared__ float cps[];   // walk checkpoints (walk_cp_slots)
    const int stride = walk_cp_stride(k);
    // both walks batched: load pipelining only, the fadd order (the
    // CPU-parity contract) is untouched (v1.2); walk 2 resumes from a
    // checkpoint binary search since v1.3 (bit-identical prefix)
    float window_mass = 0.0f;
    int ncp = 0;
    walk_until_cp(exps, k, INFINITY, &window_mass, cps, stride, &ncp);
    const float u = splitmix_uniform(seed);
    const float target = u * window_mass;
    const int hit = walk_from_cp(exps, k, target, cps, ncp, stride);
    const int idx = (hit >= 0) ? hit : k - 1;      // rounding fallback
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

long long sample_topk_launch(const float* x, int n, int k, float t,
                             unsigned long long seed, std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (k <= 0)
        throw std::invalid_argument("k must be >= 1");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if (k > n) k = n;                             // full-vocab sampling
    cudaStream_t cs = (cudaStream_t)stream;
    int mm = 1;
    while (mm < k) mm <<= 1;                      // sort pad size
    unsigned long long* ws =
        selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)mm + kWsScanWords +
                            sizeof(SelArgs) / sizeof(unsigned long long));
    SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(mm));
    int* token_out = reinterpret_cast<int*>(ws + kWsToken);
    int token = -1;
    checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
    cudaMemcpyAsync(token_out, &token, sizeof(int), cudaMemcpyHostToDevice,
                    cs);
    ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
    const int grid = selection_grid(n);
    const float inv_t = 1.0f / t;
    for (int level = 7; level >= 0; --level)
        select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
            dargs, ws, n, level, (unsigned long long)k, inv_t, kNoPen);
    select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n,
                                                       inv_t, kNoPen);
    check_launch("sample topk round launch");
    // the sort tail is unified for every k: emit the k survivors, sort
    // them (one or several 1024-key chunks + the merge ladder), draw.
    // No mass threshold anywhere - the window renormalizes by definition.
    emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, k, inv_t, kNoPen);
    unsigned long long* sorted = sort_keys(ws, k, mm, cs);
    // parallel exp precompute; the serial walk then only adds
    float* exps =
        reinterpret_cast<float*>(sort_keys_mate(ws, mm, sorted));
    exp_window_kernel<<<selection_grid(k), kSelBlock, 0, cs>>>(
        sorted, exps, k);
    sample_topk_serial_kernel<<<1, 32, walk_cp_slots(k) * sizeof(float),
                                cs>>>(sorted, exps, token_out,
                                      k, seed);
    check_launch("sample topk tail launch");
    cudaError_t err = cudaStreamSynchronize(cs);    // surface kernel faults
    if (err != cudaSuccess)
        throw std::runtime_error(std::string("sample topk kernel failed: ") +
                                 cudaGetErrorString(err));
    if (cudaMemcpy(&token, token_out, sizeof(int),
                   cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("sample topk readback failed");
    if (token < 0)
        throw std::runtime_error("sample topk produced no token");
    return token;
}

// ---------------------------------------------------------------------------
// fused min-p sampling (v1.3): keep every token whose probability is at
// least min_p times the MAXIMUM probability, renormalize within that
// nucleus and inverse-CDF the seeded hash. In the max-normalized exp
// column (exps[0] == 1.0 exactly) the nucleus is a PREFIX cut at the
// first element with exp < min_p - a value threshold, so unlike top-p
// no global-mass reduction is needed and the serial walk stops at the
// cut. (CPU reference: sample_minp_cpu in sampling.cu.)
// ---------------------------------------------------------------------------

// Value-threshold walk for min-p: accumulate cum in index order until
// the first element STRICTLY below `floor`; *cum_out carries the mass
// of the passing prefix (the crossing element itself excluded, the
// same order the CPU reference breaks at). Checkpoints recorded for
// the inverse-CDF walk, branch-free like walk_until_cp.
__device__ int walk_until_below(const float* __restrict__ exps, int count,
                                float floor, float* cum_out, float* cps,
                                int stride, int* ncp_out) {
    float cum = 0.0f;
    int i = 0;
    int ncp = 0;
    int until_rec = stride;
    const int a = (int)(((16u - (unsigned)(uintptr_t)exps) & 15u) >> 2);
    for (; i < a && i < count; ++i) {
        if (exps[i] < floor) { *cum_out = cum; *ncp_out = ncp; return i; }
        cum += exps[i];
    }
    for (; i + kWalkBatch <= count; ) {
        const float4* q = reinterpret_cast<const float4*>(exps + i);
        float4 r[kWalkBatch / 4];
        #pragma unroll
        for (int j = 0; j < kWalkBatch / 4; ++j) r[j] = q[j];
        const float base = cum;
        bool any = false;
        #pragma unroll
        for (int j = 0; j < kWalkBatch / 4; ++j) {
            cum += r[j].x; any |= (r[j].x < floor);
            cum += r[j].y; any |= (r[j].y < floor);
            cum += r[j].z; any |= (r[j].z < floor);
            cum += r[j].w; any |= (r[j].w < floor);
        }
        if (any) {
            // a below-floor element is in THIS batch: replay the 32
            // adds in order to pin the exact cut (adds before the cut
            // are identical; the cut element is NOT accumulated)
            float c = base;
            for (int k = i; k < i + kWalkBatch; ++k) {
                if (exps[k] < floor) { *cum_out = c; *ncp_out = ncp; return k; }
                c += exps[k];
            }
        }
        --until_rec;                 // branch-free checkpoint record
        const bool rec = (until_rec == 0);
        until_rec = rec ? stride : until_rec;
        cps[ncp] = cum;
        ncp += rec;
        i += kWalkBatch;
    }
    for (; i < count; ++i) {
        if (exps[i] < floor) { *cum_out = cum; *ncp_out = ncp; return i; }
        cum += exps[i];
    }
    *cum_out = cum;
    *ncp_out = ncp;
    return -1;
}

__global__ void sample_minp_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps,
    unsigned long long* __restrict__ ws,
    int* __restrict__ token_out,
    int k, int n, float min_p, unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    extern __shared__ float cps[];   // walk checkpoints (walk_cp_slots)
    const int stride = walk_cp_stride(k);
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, min_p, &nucleus_mass, cps,
                                      stride, &ncp);
    if (edge < 0 && k < n) {
        // every window element passes: nucleus extends past the window -
        // the host retries wider (token stays -1). Leave the whole-window
        // cum mass for the host's next-jump bound (widen_window_minp)
        *reinterpret_cast<float*>(&ws[kWsCumW]) = nucleus_mass;
        return;
    }
    const int nucleus = (edge < 0) ? k : edge;
    // exps[0] == 1.0 >= min_p for a valid min_p, so the nucleus is
    // never empty and nucleus_mass > 0
    const float u = splitmix_uniform(seed);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp, stride);
    // float-boundary fallback: the last nucleus element, same as the
    // CPU reference and the topk walker
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// top-a sampling tail: keep every element whose probability
// p_i >= top_a * p_max^2 (the top-a rule from the open-source sampling
// stack) - a VALUE threshold on the normalized probability, so the same
// prefix-walk machinery as min-p applies with the threshold derived
// in-kernel from the workspace slots. In the max-normalized exp column
// (exps[0] == 1.0, total T from exptotal_kernel) p_max == 1 / T, so the
// cutoff translates to exp units as e_i >= top_a / T: one float divide
// off kWsTotal, no extra reduction passes. The cutoff is bounded by
// p_max for any top_a <= 1 (a * p_max^2 <= p_max when p_max <= 1), so
// the nucleus is never empty. An uncovered window leaves the sentinel
// and the whole-window cum mass for the host's widening bound
// (widen_window_topa).
__global__ void sample_topa_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps,
    unsigned long long* __restrict__ ws,
    int* __restrict__ token_out,
    int k, int n, float top_a, unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const float total =
        *reinterpret_cast<const float*>(&ws[kWsTotal]);
    const float threshold_e = top_a / total;   // cutoff in exp units
    extern __shared__ float cps[];   // walk checkpoints (walk_cp_slots)
    const int stride = walk_cp_stride(k);
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, threshold_e, &nucleus_mass,
                                      cps, stride, &ncp);
    if (edge < 0 && k < n) {
        // every window element passes: nucleus extends past the window -
        // the host retries wider (token stays -1). Leave the whole-window
        // cum mass for the host's next-jump bound (widen_window_topa)
        *reinterpret_cast<float*>(&ws[kWsCumW]) = nucleus_mass;
        return;
    }
    // nucleus is never empty (threshold_e <= exps[0]); the max(.., 1)
    // makes the min-token guarantee explicit against float drift
    const int nucleus = (edge < 0) ? k : (edge > 0 ? edge : 1);
    const float u = splitmix_uniform(seed);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp, stride);
    // float-boundary fallback: the last nucleus element, same as the
    // CPU reference and the topk walker
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// Mirostat v2 serial tail (v2.5): value-threshold nucleus at
// p_i >= 2^-mu derived from the workspace total (the top-a pattern -
// one exp2f + multiply off kWsTotal), top-1 fallback for an empty
// nucleus, and the fused state update
// mu' = mu - eta * (log2(total) - log2(exp_sampled)). On success the
// new mu rides the kWsCumW word (disjoint from the widen-failure cum
// mass the host reads on retry); the f32 op order matches the CPU
// reference exactly.
__global__ void sample_mirostat_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps,
    unsigned long long* __restrict__ ws,
    int* __restrict__ token_out,
    int k, int n, float mu, float tau, float eta,
    unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    extern __shared__ float cps[];   // walk checkpoints (walk_cp_slots)
    const int stride = walk_cp_stride(k);
    const float total =
        *reinterpret_cast<const float*>(&ws[kWsTotal]);
    const float thr_exp = exp2f(-mu) * total;
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, thr_exp, &nucleus_mass,
                                      cps, stride, &ncp);
    if (edge < 0 && k < n) {
        // window covers only nucleus members: the host widens; leave
        // the whole-window cum mass for the jump bound
        *reinterpret_cast<float*>(&ws[kWsCumW]) = nucleus_mass;
        return;
    }
    int nucleus = (edge < 0) ? k : edge;
    if (nucleus == 0) {                  // threshold above the top exp
        nucleus = 1;                     // top-1 fallback
        nucleus_mass = exps[0];
    }
    const float u = splitmix_uniform(seed);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp, stride);
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    // state update: s = -log2(p) = log2(total) - log2(exp) in f32,
    // same op order as the CPU reference
    const float s = log2f(total) - log2f(exps[idx]);
    *reinterpret_cast<float*>(&ws[kWsCumW]) = mu - eta * (s - tau);
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}


// top-n-sigma sampling tail (Shi et al. 2024, "Top-n sigma: Not All
// Logits Are You Need"): keep every element whose temperature-scaled
// logit exceeds mu - nsigma * sigma (mu / sigma: the row's mean and
// standard deviation) - a VALUE threshold like min-p, derived
// in-kernel from the workspace slots (first/second moment
// accumulators s1, s2 from the fused mass+stats pass, both
// max-shifted). With
// d = l - max the mean is mu = max + s1 / n and the cutoff translates
// to exp units as exp(d_mean - nsigma * sigma_d) - max-independent and
// never above 1 (d_mean <= 0 and sigma >= 0), so the nucleus is never
// empty; the all-equal row (sigma == 0, cutoff == every logit) keeps
// the whole window. An uncovered window leaves the sentinel and the
// whole-window cum mass for the host's widening bound
// (widen_window_nsigma).
__global__ void sample_nsigma_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps,
    unsigned long long* __restrict__ ws,
    int* __restrict__ token_out,
    int k, int n, float nsigma, unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const double s1 = *reinterpret_cast<const double*>(&ws[kWsNsS1]);
    const double s2 = *reinterpret_cast<const double*>(&ws[kWsNsS2]);
    const double mu_d = s1 / (double)n;
    const double var = fmax(s2 / (double)n - mu_d * mu_d, 0.0);
    const float sigma = (float)sqrt(var);
    const float threshold_e = expf((float)mu_d - nsigma * sigma);
    extern __shared__ float cps[];   // walk checkpoints (walk_cp_slots)
    const int stride = walk_cp_stride(k);
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, threshold_e, &nucleus_mass,
                                      cps, stride, &ncp);
    if (edge < 0 && k < n) {
        // every window element passes: nucleus extends past the window -
        // the host retries wider (token stays -1). Leave the whole-window
        // cum mass for the host's next-jump bound (widen_window_nsigma)
        *reinterpret_cast<float*>(&ws[kWsCumW]) = nucleus_mass;
        return;
    }
    // nucleus is never empty (threshold_e <= 1 == exps[0]); the
    // max(.., 1) makes the min-token guarantee explicit against drift
    const int nucleus = (edge < 0) ? k : (edge > 0 ? edge : 1);
    const float u = splitmix_uniform(seed);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp, stride);
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// eta-cutoff sampling tail (v1.6, Hewitt et al. 2022): keep every
// element whose probability p_i >= eta * min(1, exp(-H)), H the
// distribution entropy in nats - a VALUE threshold like min-p, so the
// same prefix-walk machinery applies with the threshold derived
// in-kernel from the workspace slots (global total T and
// entropy accumulator s from the fused mass+stats pass:
// H = log(T) - s / T, cutoff p = eta * min(1, exp(-H))). The cutoff is
// bounded by p_max (the weighted geometric mean of the p_i bounds
// their max), so the nucleus is never empty. An uncovered window
// leaves the sentinel and the whole-window cum mass for the host's
// widening bound (widen_window_eta).
__global__ void sample_eta_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps,
    unsigned long long* __restrict__ ws,
    int* __restrict__ token_out,
    int k, int n, float eta, unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const float total =
        *reinterpret_cast<const float*>(&ws[kWsTotal]);
    const float s =
        *reinterpret_cast<const float*>(&ws[kWsEtaS]);
    const float h = logf(total) - s / total;
    const float threshold_e =
        eta * fminf(1.0f, expf(-h)) * total;   // cutoff in exp units
    extern __shared__ float cps[];   // walk checkpoints (walk_cp_slots)
    const int stride = walk_cp_stride(k);
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, threshold_e, &nucleus_mass,
                                      cps, stride, &ncp);
    if (edge < 0 && k < n) {
        // every window element passes: nucleus extends past the window -
        // the host retries wider (token stays -1). Leave the whole-window
        // cum mass for the host's next-jump bound (widen_window_eta)
        *reinterpret_cast<float*>(&ws[kWsCumW]) = nucleus_mass;
        return;
    }
    // nucleus is never empty (threshold_e <= exps[0]); the max(.., 1)
    // makes the min-token guarantee explicit against float drift
    const int nucleus = (edge < 0) ? k : (edge > 0 ? edge : 1);
    const float u = splitmix_uniform(seed);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp, stride);
    // float-boundary fallback: the last nucleus element, same as the
    // CPU reference and the topk walker
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// locally typical sampling tail (v1.6, Meister et al. 2022): keep the
// smallest BAND of the value-sorted window whose mass reaches
// typical * total, renormalize inside it, and draw. The band is
// contiguous in the value order because the shifted surprise
// |lv_i - m| is U-shaped along it (lv_i = log of the window exp,
// m = s / total their p-weighted mean - both from the workspace slots
// like eta): it descends to a valley at lv == m and rises again, so
// {shifted <= b} crosses each level at most twice. The two-pointer
// expansion below adds members in globally ascending shifted order
// (merging the valley's two monotone arms), which yields the canonical
// minimal band. No sufficient widening bound exists for the band (its
// mass growth is data-shaped), so the host ladder is the honest x8;
// the full window always covers (its band mass is the total, and
// typical * total <= total).
__global__ void sample_typical_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps,
    unsigned long long* __restrict__ ws,
    int* __restrict__ token_out,
    int k, int n, float typical, unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const float total =
        *reinterpret_cast<const float*>(&ws[kWsTotal]);
    const float s =
        *reinterpret_cast<const float*>(&ws[kWsEtaS]);
    const float m = s / total;   // p-mean of lv; shifted = |lv - m|
    // the U-shape's valley seeds the band
    int amin = 0;
    float best = fabsf(logf(exps[0]) - m);
    for (int i = 1; i < k; ++i) {
        const float d = fabsf(logf(exps[i]) - m);
        if (d < best) { best = d; amin = i; }
    }
    int lo = amin, hi = amin;
    float mass = exps[amin];
    const float need = typical * total;
    // grow the band in globally ascending shifted order (the two U
    // arms are each monotone; merging by the smaller next shifted
    // adds members in canonical order). lo == 0 is a TRUE edge -
    // nothing precedes the global max - but hi == k - 1 only closes
    // the band when k == n: otherwise canonical members may live
    // past the window tail, and that band cannot be trusted (the
    // post-loop check sends it back for widening).
    while (mass < need) {
        const float dl = (lo > 0) ? fabsf(logf(exps[lo - 1]) - m) : 1e30f;
        const float dr = (hi < k - 1) ? fabsf(logf(exps[hi + 1]) - m)
                                      : 1e30f;
        if (dl == 1e30f && dr == 1e30f)
            break;       // both true edges and still short (float edge)
        if (dl <= dr) { --lo; mass += exps[lo]; }
        else {
            ++hi; mass += exps[hi];
            if (hi == k - 1 && k < n && mass < need) {
                // right arm truncated at the window edge with the
                // mass still short: canonical members may live past
                // the edge, so widen rather than draw a wrong band
                *reinterpret_cast<float*>(&ws[kWsCumW]) = mass;
                return;
            }
        }
    }
    if ((mass < need || hi == k - 1) && k < n) {
        // short mass, or the band touches the window tail where
        // canonical members may live past the edge - widen (lo == 0
        // is a true edge; nothing precedes the global max). At
        // k == n there is nothing to widen to: the band was walked
        // over the whole window, so its mass IS the row total up to
        // summation-order ulp - never let that ulp shortfall
        // (possible when typical == 1.0, whose need equals the
        // parallel-reduction total exactly) turn into a spurious
        // "not covered"; draw from the band like the topp/minp/eta
        // full-window fallbacks do.
        *reinterpret_cast<float*>(&ws[kWsCumW]) = mass;
        return;
    }
    // draw inside [lo, hi] renormalized to the band mass, replaying
    // the band's cumsum in ascending index order (same order as this
    // walk - bit-stable per seed)
    const float u = splitmix_uniform(seed);
    const float target = u * mass;
    float cum = 0.0f;
    int idx = hi;
    for (int i = lo; i <= hi; ++i) {
        cum += exps[i];
        if (cum >= target) { idx = i; break; }
    }
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

long long sample_minp_launch(const float* x, int n, float min_p, float t,
                             unsigned long long seed, std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(min_p > 0.0f && min_p <= 1.0f))
        throw std::invalid_argument("min_p must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    // Window strategy: min-p nuclei are typically tiny (a handful of
    // tokens), so the first 1024-window covers them; wide-nucleus cases
    // widen adaptively (v1.4): the value threshold alone bounds nothing,
    // but combined with the one-time GLOBAL total the mass argument of
    // widen_window_minp gives a sufficient next window. The total is
    // computed lazily - only after the first failure, cached on the host
    // (it is invariant across retries: same logits, same temperature).
    double total = -1.0;
    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;                // sort pad size
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m +
                                kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        // full-vocabulary fast path: every key survives the radix
        // rounds when window == n, so emit's k==n parallel pack alone
        // is the whole "selection"
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window,
                    inv_t, kNoPen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, inv_t, kNoPen);
        }
        emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                 inv_t, kNoPen);
        check_launch("minp selection launch");
        unsigned long long* sorted = sort_keys(ws, window, m, cs);
        float* exps =
            reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
        exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
            sorted, exps, window);
        sample_minp_serial_kernel<<<1, 32,
                                    walk_cp_slots(window) * sizeof(float),
                                    cs>>>(
            sorted, exps, ws, token_out, window, n, min_p, seed);
        check_launch("minp tail launch");
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("min-p kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("min-p readback failed");
        if (token >= 0)
            return token;
        if (window == n)
            throw std::runtime_error("min-p nucleus not covered");
        if (total < 0.0) {
            // one-time global max + total for the adaptive bound. The
            // head memset of THIS attempt zeroed both slots; the kernels
            // run here on the same stream, strictly after the failed
            // attempt (its kWsCumW store is already visible - the sync
            // above ordered it) and before the readback below.
            expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t,
                                                      kNoPen);
            exptotal_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t,
                                                        kNoPen);
            check_launch("minp mass launch");
            err = cudaStreamSynchronize(cs);
            if (err != cudaSuccess)
                throw std::runtime_error(std::string("min-p mass failed: ") +
                                         cudaGetErrorString(err));
            unsigned long long tw = 0ULL;
            if (cudaMemcpy(&tw, ws + kWsTotal, sizeof(tw),
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("min-p total readback failed");
            total = (double)*reinterpret_cast<const float*>(&tw);
        }
        window = widen_window_minp(window, n, min_p, total, ws);
    }
}

// ---------------------------------------------------------------------------
// fused top-a sampling: softmax(logits/T) -> keep every token with
// p_i >= top_a * p_max^2 -> inverse-CDF draw from a hash-derived
// uniform. The cutoff derives from the exptotal total (p_max = 1/T in
// the max-normalized exp column), re-run per attempt (the per-attempt
// head memset zeroes the slot). Same windowing strategy and
// non-capturable contract as sample_minp.
// ---------------------------------------------------------------------------
long long sample_topa_launch(const float* x, int n, float top_a, float t,
                             unsigned long long seed, std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(top_a > 0.0f && top_a <= 1.0f))
        throw std::invalid_argument("top_a must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    // like eta, the cutoff derives from a workspace quantity (T) the
    // serial walker reads - so the mass passes run on EVERY attempt
    // (the head memset zeroes the slot). The widening bound additionally
    // needs the total host-side; it is window-invariant, so it is read
    // back once after the first failure and cached (same lazy pattern
    // as min-p's / eta's total).
    double total = -1.0;
    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;                // sort pad size
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m +
                                kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window,
                    inv_t, kNoPen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, inv_t, kNoPen);
        }
        // the mass pass feeds the serial walker's cutoff (kWsExpMax
        // publishes the max before the total consumer)
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        exptotal_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t,
                                                    kNoPen);
        check_launch("top-a mass launch");
        emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                inv_t, kNoPen);
        check_launch("top-a selection launch");
        unsigned long long* sorted = sort_keys(ws, window, m, cs);
        float* exps =
            reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
        exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
            sorted, exps, window);
        sample_topa_serial_kernel<<<1, 32,
                                    walk_cp_slots(window) * sizeof(float),
                                    cs>>>(
            sorted, exps, ws, token_out, window, n, top_a, seed);
        check_launch("top-a tail launch");
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("top-a kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("top-a readback failed");
        if (token >= 0)
            return token;
        if (window == n)
            throw std::runtime_error("top-a nucleus not covered");
        if (total < 0.0) {
            // one-time readback of the global total for the adaptive
            // bound (window-invariant, and already correct: the failed
            // attempt's own exptotal pass populated the slot - re-running
            // the pass would atomicAdd onto it and double the value)
            err = cudaStreamSynchronize(cs);
            if (err != cudaSuccess)
                throw std::runtime_error(std::string("top-a mass failed: ") +
                                         cudaGetErrorString(err));
            unsigned long long tw = 0ULL;
            if (cudaMemcpy(&tw, ws + kWsTotal, sizeof(tw),
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("top-a total readback failed");
            total = (double)*reinterpret_cast<const float*>(&tw);
        }
        window = widen_window_topa(window, n, top_a, total, ws);
    }
}

// Mirostat v2 single-row launcher (v2.5): the top-a pipeline with the
// absolute threshold 2^-mu * total and the fused mu update. Returns
// (token, mu'). Not CUDA-graph capturable (per-attempt readback).

std::pair<long long, float> sample_mirostat_launch(
    const float* x, int n, float mu, float tau, float eta, float t,
    unsigned long long seed, std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(tau > 0.0f))
        throw std::invalid_argument("tau must be > 0");
    if (!(eta > 0.0f))
        throw std::invalid_argument("eta must be > 0");
    if (!std::isfinite(mu))
        throw std::invalid_argument("mu must be finite");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    // like top-a, the cutoff derives from a workspace quantity (T)
    // the serial walker reads - so the mass passes run on EVERY
    // attempt (the head memset zeroes the slot). The widening bound
    // additionally needs the total host-side; it is window-invariant,
    // so it is read back once after the first failure and cached
    // (same lazy pattern as min-p's / top-a's total).
    double total = -1.0;
    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;                // sort pad size
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m +
                                kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window,
                    inv_t, kNoPen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, inv_t, kNoPen);
        }
        // the mass pass feeds the serial walker's cutoff (kWsExpMax
        // publishes the max before the total consumer)
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        exptotal_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t,
                                                    kNoPen);
        check_launch("mirostat mass launch");
        emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                inv_t, kNoPen);
        check_launch("mirostat selection launch");
        unsigned long long* sorted = sort_keys(ws, window, m, cs);
        float* exps =
            reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
        exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
            sorted, exps, window);
        sample_mirostat_serial_kernel<<<1, 32,
                                    walk_cp_slots(window) * sizeof(float),
                                    cs>>>(
            sorted, exps, ws, token_out, window, n, mu, tau, eta,
            seed);
        check_launch("mirostat tail launch");
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("mirostat kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("mirostat readback failed");
        if (token >= 0) {
            // the tail parked mu' in the kWsCumW word on success
            unsigned long long mw = 0ULL;
            if (cudaMemcpy(&mw, ws + kWsCumW, sizeof(mw),
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("mirostat mu readback failed");
            return {token,
                    *reinterpret_cast<const float*>(&mw)};
        }
        if (window == n)
            throw std::runtime_error("mirostat nucleus not covered");
        if (total < 0.0) {
            // one-time readback of the global total for the adaptive
            // bound (window-invariant, and already correct: the failed
            // attempt's own exptotal pass populated the slot - re-running
            // the pass would atomicAdd onto it and double the value)
            err = cudaStreamSynchronize(cs);
            if (err != cudaSuccess)
                throw std::runtime_error(std::string("top-a mass failed: ") +
                                         cudaGetErrorString(err));
            unsigned long long tw = 0ULL;
            if (cudaMemcpy(&tw, ws + kWsTotal, sizeof(tw),
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("top-a total readback failed");
            total = (double)*reinterpret_cast<const float*>(&tw);
        }
        window = widen_window_mirostat(window, n, mu, total, ws);
    }
}

// ---------------------------------------------------------------------------
// fused top-n-sigma sampling (v1.8): softmax(logits/T) -> keep every
// token with logit >= mu - nsigma * sigma (mu, sigma: the row's mean
// and standard deviation over the temperature-scaled logits) ->
// inverse-CDF draw from a hash-derived uniform. The moments come from
// the fused mass+stats pass accumulators, re-run per attempt (the
// per-attempt head memset zeroes their slots). Same windowing strategy
// and non-capturable contract as sample_minp/eta/top-a.
// ---------------------------------------------------------------------------
long long sample_nsigma_launch(const float* x, int n, float nsigma,
                               float t, unsigned long long seed,
                               std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(nsigma > 0.0f))
        throw std::invalid_argument("nsigma must be > 0");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    // the cutoff derives from workspace quantities (s1, s2) the serial
    // walker reads - so the stats pass runs on EVERY attempt (the head
    // memset zeroes the slots). The widening bound additionally needs
    // the moments host-side; they are window-invariant, so they are
    // read back once after the first failure and cached (same lazy
    // pattern as min-p's / eta's / top-a's total).
    double total = -1.0;
    double s1_acc = 0.0, s2_acc = 0.0;
    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;                // sort pad size
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m +
                                kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window,
                    inv_t, kNoPen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, inv_t, kNoPen);
        }
        // the mass + moment passes feed the serial walker's cutoff
        // (kWsExpMax publishes the max before the consumers; the
        // exptotal total is only needed for the widening bound)
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        mass_stats_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t,
                                                      kNoPen);
        check_launch("nsigma mass launch");
        emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                inv_t, kNoPen);
        check_launch("nsigma selection launch");
        unsigned long long* sorted = sort_keys(ws, window, m, cs);
        float* exps =
            reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
        exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
            sorted, exps, window);
        sample_nsigma_serial_kernel<<<1, 32,
                                      walk_cp_slots(window) * sizeof(float),
                                      cs>>>(
            sorted, exps, ws, token_out, window, n, nsigma, seed);
        check_launch("nsigma tail launch");
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("nsigma kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("nsigma readback failed");
        if (token >= 0)
            return token;
        if (window == n)
            throw std::runtime_error("nsigma nucleus not covered");
        if (total < 0.0) {
            // one-time readback of the global total and the moments for
            // the adaptive bound (all window-invariant, and already
            // correct: the failed attempt's own fused pass populated
            // the slots - re-running the pass would atomicAdd onto them
            // and double every value)
            err = cudaStreamSynchronize(cs);
            if (err != cudaSuccess)
                throw std::runtime_error(std::string("nsigma mass failed: ") +
                                         cudaGetErrorString(err));
            unsigned long long tw = 0ULL;
            double d1 = 0.0, d2 = 0.0;
            if (cudaMemcpy(&tw, ws + kWsTotal, sizeof(tw),
                           cudaMemcpyDeviceToHost) != cudaSuccess ||
                cudaMemcpy(&d1, ws + kWsNsS1, sizeof(d1),
                           cudaMemcpyDeviceToHost) != cudaSuccess ||
                cudaMemcpy(&d2, ws + kWsNsS2, sizeof(d2),
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("nsigma mass readback failed");
            total = (double)*reinterpret_cast<const float*>(&tw);
            s1_acc = d1;
            s2_acc = d2;
        }
        window = widen_window_nsigma(window, n, nsigma, total, s1_acc,
                                     s2_acc, ws);
    }
}

// ---------------------------------------------------------------------------
// fused eta-cutoff sampling (v1.6): softmax(logits/T) -> keep every token
// with p_i >= eta * min(1, exp(-H)) -> inverse-CDF draw from a
// hash-derived uniform. H (the distribution entropy in nats) comes from
// the fused mass+stats pass (entropy + total), both re-run per
// attempt (the per-attempt head memset zeroes their slots). Same
// windowing strategy and non-capturable contract as sample_minp.
// ---------------------------------------------------------------------------
long long sample_eta_launch(const float* x, int n, float eta, float t,
                            unsigned long long seed, std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(eta > 0.0f && eta <= 1.0f))
        throw std::invalid_argument("eta must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    // unlike min-p, the cutoff derives from workspace quantities (T, s)
    // the serial walker reads - so the mass passes run on EVERY attempt
    // (the head memset zeroes their slots), exactly like top-p's.
    // The widening bound additionally needs them host-side; both are
    // window-invariant, so they are read back once after the first
    // failure and cached (same lazy pattern as min-p's total).
    double total = -1.0;
    double s_acc = 0.0;
    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;                // sort pad size
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m +
                                kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window,
                    inv_t, kNoPen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, inv_t, kNoPen);
        }
        // the fused mass+stats pass feeds the serial walker's cutoff
        // (kWsExpMax publishes the max before it; one full read
        // produces the total AND the entropy accumulator)
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        mass_stats_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t,
                                                      kNoPen);
        check_launch("eta mass launch");
        emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                 inv_t, kNoPen);
        check_launch("eta selection launch");
        unsigned long long* sorted = sort_keys(ws, window, m, cs);
        float* exps =
            reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
        exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
            sorted, exps, window);
        sample_eta_serial_kernel<<<1, 32,
                                   walk_cp_slots(window) * sizeof(float),
                                   cs>>>(
            sorted, exps, ws, token_out, window, n, eta, seed);
        check_launch("eta tail launch");
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("eta kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("eta readback failed");
        if (token >= 0)
            return token;
        if (window == n)
            throw std::runtime_error("eta nucleus not covered");
        if (total < 0.0) {
            // one-time readback of the global total and the entropy
            // accumulator for the adaptive bound (both window-invariant,
            // and already correct: the failed attempt's own fused pass
            // populated the slots - re-running the pass would atomicAdd
            // onto them and double every value)
            err = cudaStreamSynchronize(cs);
            if (err != cudaSuccess)
                throw std::runtime_error(std::string("eta mass failed: ") +
                                         cudaGetErrorString(err));
            unsigned long long words[2] = {0ULL, 0ULL};
            if (cudaMemcpy(words, ws + kWsTotal, sizeof(unsigned long long),
                           cudaMemcpyDeviceToHost) != cudaSuccess ||
                cudaMemcpy(words + 1, ws + kWsEtaS,
                           sizeof(unsigned long long),
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("eta mass readback failed");
            total = (double)*reinterpret_cast<const float*>(&words[0]);
            s_acc = (double)*reinterpret_cast<const float*>(&words[1]);
        }
        window = widen_window_eta(window, n, eta, total, s_acc, ws);
    }
}

// ---------------------------------------------------------------------------
// fused locally typical sampling (v1.6): softmax(logits/T) -> keep the
// smallest value-ordered band whose mass reaches typical * total (the
// band groups tokens by |surprise - entropy|, so too-confident and
// too-surprising tokens are trimmed symmetrically) -> renormalize
// inside the band -> inverse-CDF draw from a hash-derived uniform.
// Same windowing strategy as sample_minp/eta, but the band has no
// analytic widening bound - the honest x8 ladder is the whole story.
// Not CUDA-graph capturable (per-attempt readback).
// ---------------------------------------------------------------------------
long long sample_typical_launch(const float* x, int n, float typical,
                                float t, unsigned long long seed,
                                std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(typical > 0.0f && typical <= 1.0f))
        throw std::invalid_argument("typical must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    // the band membership needs the global total and the entropy
    // accumulator, so - like eta - the mass passes run on EVERY attempt
    // (the head memset zeroes their slots). Nothing is read back for
    // widening: the ladder is a plain x8 with the full window as the cap.
    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;                // sort pad size
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m +
                                kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window,
                    inv_t, kNoPen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, inv_t, kNoPen);
        }
        // band membership needs the total and the entropy accumulator
        // (kWsExpMax publishes the max before the fused pass; one
        // full read produces both)
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        mass_stats_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t,
                                                      kNoPen);
        check_launch("typical mass launch");
        emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                 inv_t, kNoPen);
        check_launch("typical selection launch");
        unsigned long long* sorted = sort_keys(ws, window, m, cs);
        float* exps =
            reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
        exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
            sorted, exps, window);
        sample_typical_serial_kernel<<<1, 32,
                                       walk_cp_slots(window) *
                                           sizeof(float),
                                       cs>>>(
            sorted, exps, ws, token_out, window, n, typical, seed);
        check_launch("typical tail launch");
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("typical kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("typical readback failed");
        if (token >= 0)
            return token;
        if (window == n)
            throw std::runtime_error("typical nucleus not covered");
        // honest x8 ladder: the band has no analytic widening bound
        window = (int)std::min<long long>(n, (long long)window * 8);
    }
}


// ---------------------------------------------------------------------------
// tail-free sampling (v2.1, Filazzola & Trottet 2023): softmax ->
// compute the CDF second derivative over the sorted window -> keep the
// prefix where the normalized |d2| stays above (1-z) -> renormalize ->
// inverse-CDF draw. Same windowing strategy as sample_typical (the
// honest x8 ladder, no analytic widening bound). Not CUDA-graph
// capturable (per-attempt readback).
// ---------------------------------------------------------------------------

// TFS serial tail (one thread, one pass per attempt): reads the sorted
// exp column, computes the normalized second derivative, finds the
// cutoff, and draws from the prefix. The d2 computation needs three
// consecutive probs per element and two passes (pass 1 for d2_max,
// pass 2 for the cutoff), but k is the sorted window (typically small).
__global__ void sample_tfs_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps,
    unsigned long long* __restrict__ ws,
    int* __restrict__ token_out,
    int k, int n, float z, unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    const float total =
        *reinterpret_cast<const float*>(&ws[kWsTotal]);

    // Pass 1: find max(|d2|) over the window.
    // d2[i] = 2*exps[i+1] - exps[i] - exps[i+2] (pre-normalization; the
    // /total scaling cancels in the normalization step)
    float d2_max = 0.0f;
    for (int i = 0; i + 2 < k; ++i) {
        const float d2 = fabsf(2.0f * exps[i+1] - exps[i] - exps[i+2]);
        if (d2 > d2_max) d2_max = d2;
    }

    // Pass 2: find the cutoff (first i where |d2[i]| < (1-z)*d2_max)
    int cutoff = k;
    if (d2_max > 0.0f) {
        const float threshold = (1.0f - z) * d2_max;
        for (int i = 0; i + 2 < k; ++i) {
            const float d2 = fabsf(2.0f * exps[i+1] - exps[i] - exps[i+2]);
            if (d2 < threshold) {
                cutoff = i + 2;
                break;
            }
        }
    }
    if (cutoff < 1) cutoff = 1;
    if (cutoff > k) cutoff = k;

    // An uncovered window (cutoff == k && k < n) means the threshold was
    // never crossed in this window, so the nucleus may extend past it.
    if (cutoff >= k && k < n) {
        float cum_mass = 0.0f;
        for (int i = 0; i < k; ++i) cum_mass += exps[i];
        *reinterpret_cast<float*>(&ws[kWsCumW]) = cum_mass;
        return;
    }

    // Accumulate the nucleus mass (the prefix sum to the cutoff)
    float nucleus_mass = 0.0f;
    for (int i = 0; i < cutoff; ++i) nucleus_mass += exps[i];

    const int nucleus = cutoff > 0 ? cutoff : 1;
    const float u = splitmix_uniform(seed);
    const float target = u * nucleus_mass;
    float cum = 0.0f;
    int idx = nucleus - 1;
    for (int i = 0; i < nucleus; ++i) {
        cum += exps[i];
        if (cum >= target) { idx = i; break; }
    }
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// TFS launcher: same windowing strategy as sample_typical (the honest
// x8 ladder is the whole story — TFS has no analytic widening bound).
// Not CUDA-graph capturable (per-attempt readback).
long long sample_tfs_launch(const float* x, int n, float z, float t,
                            unsigned long long seed,
                            std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(z > 0.0f && z <= 1.0f))
        throw std::invalid_argument("z must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m +
                                kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_kernel<<<grid, kSelBlock, 0, cs>>>(
                    dargs, ws, n, level, (unsigned long long)window,
                    inv_t, kNoPen);
            select_finalize_kernel<<<grid, kSelBlock, 0, cs>>>(
                dargs, ws, n, inv_t, kNoPen);
        }
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        exptotal_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t,
                                                    kNoPen);
        check_launch("tfs mass launch");
        emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                 inv_t, kNoPen);
        check_launch("tfs selection launch");
        unsigned long long* sorted = sort_keys(ws, window, m, cs);
        float* exps =
            reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
        exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
            sorted, exps, window);
        sample_tfs_serial_kernel<<<1, 32,
                                   walk_cp_slots(window) * sizeof(float),
                                   cs>>>(
            sorted, exps, ws, token_out, window, n, z, seed);
        check_launch("tfs tail launch");
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("tfs kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("tfs readback failed");
        if (token >= 0)
            return token;
        if (window == n)
            throw std::runtime_error("tfs nucleus not covered");
        window = window >= n ? n : window * 8;
        if (window > n) window = n;
    }
}


// Batched TFS lives with the batched family below (sample_tfs_batched_launch,
// sequencer mode 6) - it shares the chunked pipeline and the anonymous
// namespace the other batched samplers use.



// ---------------------------------------------------------------------------
// XTC sampling (v2.2, "Exclude Top Choices"): with probability p, skip
// the top `top_n` tokens and sample from the rest. Breaks the template
// outputs of over-confident LLMs.
//
// The trigger is deterministic per seed: a splitmix hash decides whether
// this draw suppresses or not. When suppressed, the first top_n tokens
// of the sorted window are removed and the distribution is renormalized
// over the remainder. At least one token is always kept: when
// top_n >= k the clamp leaves exactly the smallest candidate.
//
// Same windowing strategy as min-p (adaptive widening with the top-p
// mass bound — the suppression only REMOVES leading tokens, so the
// top-p bound on the REMAINING mass is still valid). Not CUDA-graph
// capturable (readback).
// ---------------------------------------------------------------------------

// XTC serial tail: the suppression decision (coin flip) happens first,
// then the standard walk starts past the suppressed prefix.
__global__ void sample_xtc_serial_kernel(
    const unsigned long long* __restrict__ keys,
    const float* __restrict__ exps,
    unsigned long long* __restrict__ ws,
    int* __restrict__ token_out,
    int k, int n, int top_n, float probability, unsigned long long seed) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;

    // Coin flip: suppress or not (deterministic per seed)
    const float coin = splitmix_uniform(seed ^ 0x58544300ULL);  // "XTC\0"
    const bool suppress = (coin < probability);

    // Start walking after the suppressed prefix (or from 0 if no
    // suppression). The min(top_n, k-1) clamp keeps at least one
    // candidate, so start < k always holds and no fallback is needed.
    int start = suppress ? min(top_n, k - 1) : 0;

    // Total mass of the remaining window
    float total_mass = 0.0f;
    for (int i = start; i < k; ++i) total_mass += exps[i];

    const float u = splitmix_uniform(seed);
    const float target = u * total_mass;
    float cum = 0.0f;
    int idx = k - 1;   // fallback
    for (int i = start; i < k; ++i) {
        cum += exps[i];
        if (cum >= target) { idx = i; break; }
    }
    *token_out = (int)(0xFFFFFFFFu -
                       (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// XTC launcher: the window is the whole vocabulary from the start (see
// the comment above sample_xtc_batched_launch's sequencer mode), so the
// widening loop below is a safety net that never fires in practice.
// Not CUDA-graph capturable (per-attempt readback).
long long sample_xtc_launch(const float* x, int n, int top_n, float probability,
                            float t, unsigned long long seed,
                            std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (top_n < 0)
        throw std::invalid_argument("top_n must be >= 0");
    if (!(probability >= 0.0f && probability <= 1.0f))
        throw std::invalid_argument("probability must be in [0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if (top_n == 0 || probability == 0.0f) {
        // no suppression, plain softmax sampling
        return sample_minp_launch(x, n, 1e-9f, t, seed, stream);
    }
    cudaStream_t cs = (cudaStream_t)stream;
    // The XTC distribution spans the WHOLE vocabulary: suppression only
    // removes a leading prefix, and the serial walk resolves its CDF
    // inside whatever window it is given (target = u * window mass), so
    // the nucleus widening ladder can never trigger - starting below n
    // would silently clip the tail (the 2.2.0 defect: every draw came
    // from the top kSelEarlyOut ranks on vocab > 1024). Run the
    // pipeline on the full window from the start, exactly like the CPU
    // reference; the widen loop below stays as a safety net only.
    int window = n;
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;
        unsigned long long* ws =
            selection_workspace((size_t)kSelEarlyOut + 2 * (size_t)m +
                                kWsScanWords +
                                sizeof(SelArgs) / sizeof(unsigned long long));
        SelArgs* dargs = reinterpret_cast<SelArgs*>(ws + sel_args_off(m));
        int* token_out = reinterpret_cast<int*>(ws + kWsToken);
        int token = -1;
        checked_memset_async(ws, kWsHead * sizeof(unsigned long long), cs, "workspace memset");
        if (cudaMemcpyAsync(token_out, &token, sizeof(int),
                            cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("token preset upload failed");
        ship_args(cs, dargs, x, nullptr, nullptr, nullptr, 0.0f);
        const int grid = selection_grid(n);
        const float inv_t = 1.0f / t;
        expmax_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        exptotal_kernel<<<grid, kSelBlock, 0, cs>>>(x, ws, n, inv_t, kNoPen);
        check_launch("xtc mass launch");
        emit_kernel<<<grid, kSelBlock, 0, cs>>>(dargs, ws, n, window,
                                                 inv_t, kNoPen);
        check_launch("xtc selection launch");
        unsigned long long* sorted = sort_keys(ws, window, m, cs);
        float* exps =
            reinterpret_cast<float*>(sort_keys_mate(ws, m, sorted));
        exp_window_kernel<<<selection_grid(window), kSelBlock, 0, cs>>>(
            sorted, exps, window);
        sample_xtc_serial_kernel<<<1, 32,
                                   walk_cp_slots(window) * sizeof(float),
                                   cs>>>(
            sorted, exps, ws, token_out, window, n, top_n, probability, seed);
        check_launch("xtc tail launch");
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("xtc kernel failed: ") +
                                     cudaGetErrorString(err));
        if (cudaMemcpy(&token, token_out, sizeof(int),
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("xtc readback failed");
        if (token >= 0)
            return token;
        if (window == n)
            throw std::runtime_error("xtc nucleus not covered");
        window = window >= n ? n : window * 8;
        if (window > n) window = n;
    }
}

// Batched XTC lives with the batched family below
// (sample_xtc_batched_launch, sequencer mode 7).

// ---------------------------------------------------------------------------
// DRY sampling (v2.3, "Don't Repeat Yourself"): sequence-aware repeat
// penalty + temperature + full-softmax draw. The scan mirrors the CPU
// reference (dry_penalize_copy in sampling.cu) branch for branch:
// window W = min(history, kDryMaxScan); for each suffix length L in
// [allowed_length, W) every earlier in-window occurrence of the
// current L-suffix contributes its following token, keeping the MAX
// exponent per token. The apply pass rewrites a scratch copy of the
// logits (repetition_penalty convention: positive divides, negative
// multiplies) and the plain min_p=1e-9 pipeline draws from it.
// ---------------------------------------------------------------------------

// per-row trigger-table stride: [count, (token, exponent) pairs]
constexpr size_t kDryPairStride = 1 + 2 * (size_t)kDryMaxScan;

// DRY scratch caches: the penalized copy plus the per-row trigger
// tables, one growing pair of buffers - the selection-workspace
// convention (never freed, bounded by the largest call). The same
// concurrency contract applies: process-global scratch, so concurrent
// DRY launches on DISTINCT streams (or host threads) race it -
// serialize them, or give each stream its own process.
float* dry_scratch(size_t floats) {
    static float* buf = nullptr;
    static size_t capacity = 0;
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (floats > capacity) {
        float* nb = nullptr;
        if (cudaMalloc(&nb, floats * sizeof(float)) != cudaSuccess)
            throw std::runtime_error("dry scratch alloc failed");
        if (buf) cudaFree(buf);
        buf = nb;
        capacity = floats;
    }
    return buf;
}

int* dry_pairs(size_t rows) {
    // per row: [count, (token, exponent) * up to kDryMaxScan]
    static int* buf = nullptr;
    static size_t capacity = 0;
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    const size_t words = rows * kDryPairStride;
    if (words > capacity) {
        int* nb = nullptr;
        if (cudaMalloc(&nb, words * sizeof(int)) != cudaSuccess)
            throw std::runtime_error("dry pairs alloc failed");
        if (buf) cudaFree(buf);
        buf = nb;
        capacity = words;
    }
    return buf;
}


// minimal RAII device buffer for the per-call history uploads (the
// bindings-side DevBuf is not visible from this TU)
struct DryDevBuf {
    void* p = nullptr;
    explicit DryDevBuf(size_t bytes) {
        if (bytes && cudaMalloc(&p, bytes) != cudaSuccess)
            throw std::runtime_error("dry history buffer alloc failed");
    }
    ~DryDevBuf() { if (p) cudaFree(p); }
    DryDevBuf(const DryDevBuf&) = delete;
    DryDevBuf& operator=(const DryDevBuf&) = delete;
};

// Shared table builder (one thread): mirrors dry_penalize_copy's scan.
__device__ void dry_build_pairs(const long long* __restrict__ hist,
                                long long m, int allowed_length,
                                int* __restrict__ out) {
    const long long W = m < (long long)kDryMaxScan
                            ? m : (long long)kDryMaxScan;
    int count = 0;
    if (W > 0) {
        const long long base = m - W;   // window start inside the history
        for (long long L = allowed_length; L < W; ++L) {
            for (long long j = 0; j + L < W; ++j) {
                bool eq = true;
                for (long long k = 0; k < L; ++k)
                    if (hist[base + j + k] != hist[base + W - L + k]) {
                        eq = false;
                        break;
                    }
                if (!eq) continue;
                const long long c = hist[base + j + L];
                const int e = (int)(L - allowed_length) + 1;
                int found = -1;
                for (int p = 0; p < count; ++p)
                    if (out[1 + 2 * p] == (int)c) { found = p; break; }
                if (found < 0) {
                    out[1 + 2 * count] = (int)c;
                    out[2 + 2 * count] = e;
                    ++count;
                } else if (e > out[2 + 2 * found]) {
                    out[2 + 2 * found] = e;
                }
            }
        }
    }
    out[0] = count;
}

// Single-row scan: one block, one thread (the scan is inherently
// sequential over suffix lengths; kDryMaxScan bounds the work).
__global__ void dry_scan_kernel(const long long* __restrict__ ids,
                                long long m, int allowed_length,
                                int* __restrict__ pairs) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    dry_build_pairs(ids, m, allowed_length, pairs);
}

// Applies the trigger table to a scratch copy of the row. Every thread
// reads the same small table (L1 broadcast; kDryMaxScan <= 64 entries).
__global__ void dry_apply_kernel(const float* __restrict__ x,
                                 float* __restrict__ y,
                                 const int* __restrict__ pairs, int n,
                                 float multiplier) {
    const int count = pairs[0];
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        float v = x[i];
        for (int p = 0; p < count; ++p)
            if (pairs[1 + 2 * p] == i) {
                const float pf = dry_penalty_factor(multiplier,
                                                     pairs[2 + 2 * p]);
                v = v > 0.0f ? v / pf : v * pf;
                break;
            }
        y[i] = v;
    }
}

// Batched scan: one block per row over the ragged history table.
__global__ void dry_scan_b_kernel(const long long* __restrict__ ids,
                                  const int* __restrict__ offs,
                                  int allowed_length,
                                  int* __restrict__ pairs) {
    const int row = blockIdx.x;
    if (threadIdx.x != 0) return;
    const long long m = (long long)offs[row + 1] - offs[row];
    dry_build_pairs(ids + offs[row], m, allowed_length,
                    pairs + (size_t)row * kDryPairStride);
}

// Batched apply: one pass over rows * n; the row lookup is a single
// integer division (64-bit safe like every other rows * n index).
__global__ void dry_apply_b_kernel(const float* __restrict__ x,
                                   float* __restrict__ y,
                                   const int* __restrict__ pairs,
                                   long long total, int n,
                                   float multiplier) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += (long long)gridDim.x * blockDim.x) {
        const int row = (int)(i / n);
        const int col = (int)(i - (long long)row * n);
        const int* pr = pairs + (size_t)row * kDryPairStride;
        const int count = pr[0];
        float v = x[i];
        for (int p = 0; p < count; ++p)
            if (pr[1 + 2 * p] == col) {
                const float pf = dry_penalty_factor(multiplier,
                                                     pr[2 + 2 * p]);
                v = v > 0.0f ? v / pf : v * pf;
                break;
            }
        y[i] = v;
    }
}

// DRY single-row launcher: rewrite to scratch, then the plain
// full-softmax draw (the min_p=1e-9 pipeline, the same shape as
// sample_xtc's top_n=0 early-out).
long long sample_dry_launch(const float* x, int n, const long long* ids,
                             int m, int allowed_length, float multiplier,
                             float t, unsigned long long seed,
                             std::uintptr_t stream) {
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (m < 0)
        throw std::invalid_argument("history length must be >= 0");
    if (allowed_length < 1 || allowed_length > kDryMaxScan)
        throw std::invalid_argument(
            "allowed_length must be in [1, 64]");
    if (multiplier < 1.0f)
        throw std::invalid_argument("multiplier must be >= 1");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    cudaStream_t cs = (cudaStream_t)stream;
    float* y = dry_scratch((size_t)n);
    int* pairs = dry_pairs(1);
    dry_scan_kernel<<<1, 32, 0, cs>>>(ids, (long long)m, allowed_length,
                                       pairs);
    dry_apply_kernel<<<(int)grid_for(n), kBlock, 0, cs>>>(x, y, pairs, n,
                                                           multiplier);
    check_launch("dry rewrite launch");
    return sample_minp_launch(y, n, 1e-9f, t, seed, stream);
}


// ---------------------------------------------------------------------------
// batched sampling (v1.4): sample_topp/minp/topk_batched (v1.5 adds
// decode_step_batched) - [rows, n] logits in, one token per row out.
//
// Design: the per-row pipeline IS the single-row pipeline. Every kernel
// below is the single-row body with four mechanical changes (keep in
// sync with the originals when they change):
//   1. blocks decompose as blockIdx.x = row * gpr + local, where gpr is
//      exactly the single-row grid size - a row's blocks see the same
//      launch shape a standalone call would;
//   2. the row's state is a stride-word stripe with the SAME layout as
//      the single-row workspace (head + candidates + paired key
//      buffers + scan scratch), so every intra-row offset is untouched;
//   3. the per-row scalars the HOST widens on (token / cum mass /
//      total) live in compact tail arrays after the stripes - one small
//      readback per attempt instead of B strided 4/8-byte copies (the
//      per-copy cost dominates at B > 4 on submission-bound hosts);
//   4. the repetition-penalty context travels as PenCtxB (the bitmap
//      base plus a per-row stride) instead of a ready PenCtx - each
//      kernel derives its row's context with b_pen; the plain samplers
//      pass kNoPenB and never touch a bitmap.
// The widening loop keeps ONE uniform window for the still-active rows
// (a row that already sampled is skipped through an active-row array
// and costs only the early-return branch); the next window is the max
// over the failed rows' bounds (the single-row widen_window /
// widen_window_minp formulas evaluated per row), pow2-rounded. A row's
// token is independent of the schedule - the same invariant the
// single-row samplers are built on.
//
// Numerics: identical arithmetic and accumulation order per row, with
// one documented ulp caveat - exptotal_b accumulates each row's total
// with the same per-block atomicAdd pattern, and a row's block arrival
// order under the batched grid may differ from a standalone launch, so
// a row's total can drift ~1 ulp (same class as the CPU-exact-exp vs
// GPU-__expf boundary; the parity tests pin the usual rank window).
//
// Rows are processed in chunks of kBMaxBatch so the persistent
// workspace stays bounded (32 stripes of a full-vocabulary window are
// ~67 MB at a 131k vocabulary, ~135 MB at Qwen's 152k where the sort
// pad m rounds up to 262144). The launcher synchronizes every attempt
// (inherent host readback), so like the single-row samplers it is NOT
// CUDA-graph capturable.
// ---------------------------------------------------------------------------

// rows per chunk (workspace bound; see the section note)
namespace {
constexpr int kBMaxBatch = 32;

// compact per-row scalar tail after the B stripes. Word layout (all
// ranges word-aligned so the comment IS the layout): seeds [0, B) |
// tokens [B, 2B) | cumws [2B, 2B+C) | totals [2B+C, 2B+2C) | active
// [2B+2C, 2B+3C) | svals [2B+3C, 2B+4C) | n1vals [2B+4C, 3B+4C) |
// n2vals [3B+4C, 4B+4C), C = ceil(B / 2). Each float/int array
// occupies C words; for odd B the half-word left by
// one array stays unused (a padded gap, never shared - the 1.4.0
// overlap bug came from exactly such sharing). svals holds the
// eta/typical entropy accumulator per row (v1.6, float); n1vals /
// n2vals the top-n-sigma moment accumulators per row (v1.8, one
// DOUBLE per row each - the variance's cancellation amplifies float
// arrival-order drift, so these accumulate in double), all zeroed by
// batch_preset like the totals.
struct BatchTail {
    unsigned long long* seeds;   // B u64
    long long* tokens;           // B i64, -1 = not yet sampled
    float* cumws;                // B f32, uncovered-window cum mass
    float* totals;               // B f32, max-normalized global total
    int* active;                 // B i32, 1 = row still needs a token
    float* svals;                // B f32, eta/typical entropy acc
    double* n1vals;              // B f64, nsigma first moment acc
    double* n2vals;              // B f64, nsigma second moment acc
};

inline size_t batch_tail_words(int rows) {
    const size_t pairs = (size_t)((rows + 1) / 2);
    return 4 * (size_t)rows + 4 * pairs;
}

inline BatchTail batch_tail(unsigned long long* ws, size_t stripes,
                            int rows) {
    const size_t pairs = (size_t)((rows + 1) / 2);
    BatchTail t;
    t.seeds = ws + stripes;
    t.tokens = reinterpret_cast<long long*>(ws + stripes + rows);
    t.cumws = reinterpret_cast<float*>(ws + stripes + 2 * (size_t)rows);
    t.totals = reinterpret_cast<float*>(ws + stripes + 2 * (size_t)rows +
                                       pairs);
    t.active = reinterpret_cast<int*>(ws + stripes + 2 * (size_t)rows +
                                      2 * pairs);
    t.svals = reinterpret_cast<float*>(ws + stripes + 2 * (size_t)rows +
                                       3 * pairs);
    t.n1vals = reinterpret_cast<double*>(ws + stripes + 2 *
                                         (size_t)rows + 4 * pairs);
    t.n2vals = reinterpret_cast<double*>(ws + stripes + 3 *
                                         (size_t)rows + 4 * pairs);
    return t;
}

// decode_step_batched's tail sits after its bitmap and id scratch
// regions (same layout, shifted base)
inline BatchTail batch_tail_at(unsigned long long* ws, size_t base,
                               int rows) {
    return batch_tail(ws + base, 0, rows);
}

// per-attempt scalar reset for the ACTIVE rows: tokens preset to the
// single-row -1 sentinel; cum/totals zeroed so exptotal_b's atomicAdd
// and the tail readbacks start from scratch. Inactive rows keep their
// sampled tokens in the host-side vector; the per-attempt readback
// simply ignores them (the fresh tail after a workspace realloc
// cannot be trusted for finished rows).
__global__ void batch_preset_kernel(long long* __restrict__ tokens,
                                    float* __restrict__ cumws,
                                    float* __restrict__ totals,
                                    float* __restrict__ svals,
                                    double* __restrict__ n1vals,
                                    double* __restrict__ n2vals,
                                    const int* __restrict__ active,
                                    int rows) {
    for (int r = threadIdx.x; r < rows; r += blockDim.x)
        if (active[r]) {
            tokens[r] = -1LL;
            cumws[r] = 0.0f;
            totals[r] = 0.0f;
            svals[r] = 0.0f;
            n1vals[r] = 0.0;
            n2vals[r] = 0.0;
        }
}

// select_round_kernel with the row decomposition (see the section
// note). penalty context: decode_step_batched passes a per-row bitmap
// through pb (b_pen derives the row's PenCtx); the plain samplers pass
// kNoPenB.
__global__ void select_round_b_kernel(
    const float* __restrict__ x, unsigned long long* __restrict__ ws,
    long long stride, int n, int level, unsigned long long remaining0,
    float inv_t, int gpr, const int* __restrict__ active,
    PenCtxB pb) {
    const int row = blockIdx.x / gpr;
    if (!active[row]) return;
    const int lid = blockIdx.x % gpr;
    const float* __restrict__ x_row = x + (size_t)row * n;
    unsigned long long* __restrict__ ws_row = ws + (size_t)row * stride;
    const PenCtx pen = b_pen(pb, row);
    __shared__ unsigned long long sh_hist[256];
    __shared__ int sh_ticket;

    const unsigned long long stage = ws_row[kWsStage];
    if (stage != 0ULL) return;

    unsigned long long* hist = ws_row;
    unsigned long long* ticket = ws_row + kWsTicket;

    const unsigned long long prefix = ws_row[kWsPrefix];
    const unsigned long long remaining =
        (level == 7) ? remaining0 : ws_row[kWsRemaining];
    const unsigned long long topmask =
        (level == 7) ? 0ULL : ~((1ULL << (8 * (level + 1))) - 1ULL);
    for (int b = threadIdx.x; b < 256; b += kSelBlock) sh_hist[b] = 0ULL;
    __syncthreads();
    for (int i = lid * blockDim.x + threadIdx.x; i < n;
         i += gpr * blockDim.x) {
        // the histogram must rank the row's PENALIZED distribution:
        // finalize and emit both apply pen, so an unpenalized prefix
        // here would make them compact/threshold against a key space
        // nothing else in the pipeline uses
        const unsigned long long key =
            pack_key(step_logit(x_row, i, inv_t, pen), i);
        if ((key & topmask) != prefix) continue;
        const int bin = (int)((key >> (8 * level)) & 0xFF);
        const unsigned grp = __match_any_sync(__activemask(), bin);
        if (__ffs(grp) - 1 == (int)(threadIdx.x & 31))
            atomicAdd(&sh_hist[bin], (unsigned long long)__popc(grp));
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += kSelBlock)
        if (sh_hist[b]) atomicAdd(&hist[b], sh_hist[b]);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        sh_ticket = (int)atomicAdd(ticket, 1ULL);
    }
    __syncthreads();
    if (sh_ticket != gpr - 1) return;
    __threadfence();

    const volatile unsigned long long* vhist =
        (const volatile unsigned long long*)hist;
    for (int b = threadIdx.x; b < 256; b += kSelBlock)
        sh_hist[b] = vhist[b];
    __syncthreads();

    if (threadIdx.x == 0) {
        unsigned long long acc = 0;
        for (int b = 255; b >= 0; --b) {
            const unsigned long long c = sh_hist[b];
            if (acc + c >= remaining) {
                ws_row[kWsPrefix] =
                    prefix | ((unsigned long long)b << (8 * level));
                ws_row[kWsRemaining] = remaining - acc;
                ws_row[kWsLevelDone] = (unsigned long long)level;
                if (c <= (unsigned long long)kSelEarlyOut)
                    ws_row[kWsStage] = 1ULL;
                break;
            }
            acc += c;
        }
    }
    for (int b = threadIdx.x; b < 256; b += kSelBlock) hist[b] = 0ULL;
    if (threadIdx.x == 0) *ticket = 0ULL;
}

// select_finalize_kernel with the row decomposition (penalty context
// through pb, same as select_round_b)
__global__ void select_finalize_b_kernel(
    const float* __restrict__ x, unsigned long long* __restrict__ ws,
    long long stride, int n, float inv_t, int gpr,
    const int* __restrict__ active, PenCtxB pb) {
    const int row = blockIdx.x / gpr;
    if (!active[row]) return;
    const int lid = blockIdx.x % gpr;
    const float* __restrict__ x_row = x + (size_t)row * n;
    unsigned long long* __restrict__ ws_row = ws + (size_t)row * stride;
    const PenCtx pen = b_pen(pb, row);
    __shared__ int sh_ticket;
    const unsigned long long stage = ws_row[kWsStage];
    if (stage == 2ULL) return;
    if (stage == 0ULL) {
        if (threadIdx.x == 0 && lid == 0) ws_row[kWsStage] = 2ULL;
        return;
    }

    unsigned long long* ticket = ws_row + kWsTicket;
    const unsigned long long prefix = ws_row[kWsPrefix];
    const int level_done = (int)ws_row[kWsLevelDone];
    const unsigned long long mask =
        ~((1ULL << (8 * level_done)) - 1ULL);
    unsigned long long* cand = ws_row + kWsCand;
    unsigned long long* cand_cnt = ws_row + kWsCandCnt;
    for (int i = lid * blockDim.x + threadIdx.x; i < n;
         i += gpr * blockDim.x) {
        const unsigned long long key =
            pack_key(step_logit(x_row, i, inv_t, pen), i);
        if ((key & mask) == prefix) {
            const unsigned long long pos = atomicAdd(cand_cnt, 1ULL);
            if (pos < (unsigned long long)kSelEarlyOut) cand[pos] = key;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        sh_ticket = (int)atomicAdd(ticket, 1ULL);
    }
    __syncthreads();
    if (sh_ticket != gpr - 1) return;
    __threadfence();

    int cnt = (int)(
        *(const volatile unsigned long long*)&ws_row[kWsCandCnt]);
    if (cnt > kSelEarlyOut) cnt = kSelEarlyOut;
    const unsigned long long remaining = ws_row[kWsRemaining];
    __shared__ unsigned long long sk[kSelEarlyOut];
    int len = 1;
    while (len < cnt) len <<= 1;
    const volatile unsigned long long* vcand =
        (const volatile unsigned long long*)cand;
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        sk[i] = (i < cnt) ? vcand[i] : 0ULL;
    __syncthreads();
    bitonic_desc_shared(sk, len);
    ws_row[kWsPrefix] = sk[remaining - 1];
    ws_row[kWsRemaining] = 1ULL;
    ws_row[kWsStage] = 2ULL;
    *ticket = 0ULL;
}

// emit_selected with the row decomposition (block-local index and
// row-relative grid; the two-level counting, k == n pack and tie slots
// are the single-row logic verbatim; the caller passes the row's
// already-derived penalty context)
__device__ __forceinline__ void emit_selected_b(
    const float* __restrict__ x_row,
    unsigned long long* __restrict__ ws_row,
    int n, int k, float inv_t, int lid, int gpr, PenCtx pen) {
    const unsigned long long k_min = ws_row[kWsPrefix];
    const unsigned long long tie_take = ws_row[kWsRemaining];
    unsigned long long* keys = ws_row + kWsKeys;
    unsigned long long* emit_cnt = ws_row + kWsEmit;
    unsigned long long* tie_cnt = ws_row + kWsTie;

    if (k == n) {
        for (int i = lid * blockDim.x + threadIdx.x; i < n;
             i += gpr * blockDim.x)
            keys[i] = pack_key(step_logit(x_row, i, inv_t, pen), i);
        return;
    }

    __shared__ unsigned long long sh_keys[kSelBlock];
    __shared__ unsigned long long sh_cnt;
    __shared__ unsigned long long sh_base;
    if (threadIdx.x == 0) sh_cnt = 0ULL;
    __syncthreads();
    for (int base = lid * blockDim.x; base < n; base += gpr * blockDim.x) {
        const int i = base + threadIdx.x;
        if (i < n) {
            const unsigned long long key =
                pack_key(step_logit(x_row, i, inv_t, pen), i);
            if (key > k_min) {
                const unsigned long long pos = atomicAdd(&sh_cnt, 1ULL);
                if (pos < (unsigned long long)kSelBlock) sh_keys[pos] = key;
            } else if (key == k_min && tie_take > 0) {
                const unsigned long long pos = atomicAdd(tie_cnt, 1ULL);
                if (pos < tie_take) keys[k - tie_take + pos] = key;
            }
        }
        __syncthreads();
        const unsigned long long cnt = sh_cnt;
        if (cnt > 0ULL) {
            if (threadIdx.x == 0) {
                __threadfence();
                sh_base = atomicAdd(emit_cnt, cnt);
            }
            __syncthreads();
            const unsigned long long out = sh_base + threadIdx.x;
            if (threadIdx.x < cnt && out < (unsigned long long)k)
                keys[out] = sh_keys[threadIdx.x];
        }
        __syncthreads();
        if (threadIdx.x == 0) sh_cnt = 0ULL;
        __syncthreads();
    }
}

// emit_finish_kernel's sampling tail (nucleus mode, k <= kSelEarlyOut
// first window) with the row decomposition: the last block of EACH row
// sorts that row's keys in shared memory and runs the serial sample
// scan. An uncovered window leaves the sentinel and stores the cum
// mass for the host's widening bound.
__global__ void emit_finish_b_kernel(
    const float* __restrict__ x, unsigned long long* __restrict__ ws,
    long long stride, int n, int k, float inv_t, float p,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, float* __restrict__ cumws,
    const float* __restrict__ totals, int gpr,
    const int* __restrict__ active, PenCtxB pb) {
    const int row = blockIdx.x / gpr;
    if (!active[row]) return;
    const int lid = blockIdx.x % gpr;
    const float* __restrict__ x_row = x + (size_t)row * n;
    unsigned long long* __restrict__ ws_row = ws + (size_t)row * stride;
    __shared__ int sh_ticket;
    emit_selected_b(x_row, ws_row, n, k, inv_t, lid, gpr,
                    b_pen(pb, row));
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        sh_ticket = (int)atomicAdd(ws_row + kWsTicket, 1ULL);
    }
    __syncthreads();
    if (sh_ticket != gpr - 1) return;
    __threadfence();

    __shared__ unsigned long long sk[kSelEarlyOut];
    const volatile unsigned long long* vkeys =
        (const volatile unsigned long long*)(ws_row + kWsKeys);
    int len = 1;
    while (len < k) len <<= 1;
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        sk[i] = (i < k) ? vkeys[i] : 0ULL;
    __syncthreads();
    bitonic_desc_shared(sk, len);

    if (threadIdx.x != 0) return;
    const float row_max = unfkey((unsigned)(sk[0] >> 32));
    const float total = totals[row];
    float cum = 0.0f;
    int nucleus = 0;
    float nucleus_mass = 0.0f;
    bool covered = false;
    for (int i = 0; i < k; ++i) {
        cum += __expf(unfkey((unsigned)(sk[i] >> 32)) - row_max);
        nucleus = i + 1;
        if (cum >= p * total) { nucleus_mass = cum; covered = true; break; }
    }
    if (!covered) {
        if (k < n) {
            cumws[row] = cum;
            return;
        }
        nucleus = k;
        nucleus_mass = cum;
    }
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * nucleus_mass;
    cum = 0.0f;
    int hit = -1;
    for (int i = 0; i < nucleus; ++i) {
        cum += __expf(unfkey((unsigned)(sk[i] >> 32)) - row_max);
        if (cum >= target) {
            hit = i;
            break;
        }
    }
    // float-boundary fallback: the last nucleus element, same as the
    // CPU reference (the topk walker has always done this)
    if (hit < 0)
        hit = nucleus - 1;
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(sk[hit] & 0xFFFFFFFFu));
}

// emit_kernel with the row decomposition (penalty context through pb)
__global__ void emit_b_kernel(const float* __restrict__ x,
                              unsigned long long* __restrict__ ws,
                              long long stride, int n, int k, float inv_t,
                              int gpr, const int* __restrict__ active,
                              PenCtxB pb) {
    const int row = blockIdx.x / gpr;
    if (!active[row]) return;
    const int lid = blockIdx.x % gpr;
    emit_selected_b(x + (size_t)row * n, ws + (size_t)row * stride, n, k,
                    inv_t, lid, gpr, b_pen(pb, row));
}

// chunk_sort_kernel row-decomposed: one grid-stride space over
// rows * chunks (the chunk grid of ONE row)
__global__ void chunk_sort_b_kernel(unsigned long long* __restrict__ ws,
                                    long long stride, int k, int m, int rows,
                                    const int* __restrict__ active) {
    __shared__ unsigned long long sk[kSelSortChunk];
    const int chunks = (m + kSelSortChunk - 1) / kSelSortChunk;
    for (int cg = blockIdx.x; cg < rows * chunks; cg += gridDim.x) {
        const int row = cg / chunks;
        if (!active[row]) continue;
        const int chunk = cg % chunks;
        unsigned long long* keys = ws + (size_t)row * stride + kWsKeys;
        const int base = chunk * kSelSortChunk;
        const int len = min(kSelSortChunk, m - base);
        for (int i = threadIdx.x; i < len; i += blockDim.x)
            sk[i] = (base + i < k) ? keys[base + i] : 0ULL;
        __syncthreads();
        bitonic_desc_shared(sk, len);
        for (int i = threadIdx.x; i < len; i += blockDim.x)
            keys[base + i] = sk[i];
        __syncthreads();
    }
}

// merge_level_kernel row-decomposed: src/dst are the two key-buffer
// bases (offset kWsKeys and kWsKeys + m); tiles decompose over
// rows * ntiles with row-relative strides
__global__ void merge_level_b_kernel(
    const unsigned long long* __restrict__ src,
    unsigned long long* __restrict__ dst, long long stride, int m, int run,
    int rows, const int* __restrict__ active) {
    __shared__ unsigned long long sA[kSelMergeTile];
    __shared__ unsigned long long sB[kSelMergeTile];
    const long long ntiles = m / kSelMergeTile;
    for (long long t = blockIdx.x; t < (long long)rows * ntiles;
         t += gridDim.x) {
        const int row = (int)(t / ntiles);
        if (!active[row]) continue;
        const long long tile = t % ntiles;
        const unsigned long long* s = src + (size_t)row * stride;
        unsigned long long* d = dst + (size_t)row * stride;
        const long long p0 = tile * kSelMergeTile;
        const long long pair = p0 / (2 * run);
        const long long lo0 = p0 - pair * 2 * run;
        const long long a_base = pair * 2 * run;
        const long long b_base = a_base + run;
        long long l = lo0 > run ? lo0 - run : 0;
        long long h = lo0 < run ? lo0 : run;
        while (l < h) {
            const long long mid = (l + h + 1) >> 1;
            const bool pred =
                mid == 0 || s[a_base + mid - 1] > s[b_base + lo0 - mid];
            if (pred) l = mid; else h = mid - 1;
        }
        const long long i0 = l, j0 = lo0 - i0;
        for (int u = threadIdx.x; u < kSelMergeTile; u += kSelBlock) {
            sA[u] = (i0 + u < run) ? s[a_base + i0 + u] : 0ULL;
            sB[u] = (j0 + u < run) ? s[b_base + j0 + u] : 0ULL;
        }
        __syncthreads();
        for (int u = threadIdx.x; u < kSelMergeTile; u += kSelBlock) {
            long long l2 = 0;
            long long h2 = u < kSelMergeTile ? u : kSelMergeTile;
            while (l2 < h2) {
                const long long mid = (l2 + h2 + 1) >> 1;
                const bool pred = mid == 0 || sA[mid - 1] > sB[u - mid];
                if (pred) l2 = mid; else h2 = mid - 1;
            }
            const long long i = l2, j = u - i;
            const bool take_a =
                (i < kSelMergeTile) &&
                (j >= kSelMergeTile || sA[i] > sB[j]);
            d[p0 + u] = take_a ? sA[i] : sB[j];
        }
        __syncthreads();
    }
}

// exp_window_kernel row-decomposed (keys/exps are WORD pointers; exps
// casts per row - the stride is in u64 words)
__global__ void exp_window_b_kernel(
    const unsigned long long* __restrict__ keys_base,
    unsigned long long* __restrict__ exps_base, long long stride, int k,
    int gw, const int* __restrict__ active) {
    const int row = blockIdx.x / gw;
    if (!active[row]) return;
    const int lid = blockIdx.x % gw;
    const unsigned long long* keys = keys_base + (size_t)row * stride;
    float* exps = reinterpret_cast<float*>(
        exps_base + (size_t)row * stride);
    const float row_max = unfkey((unsigned)(keys[0] >> 32));
    for (int i = lid * blockDim.x + threadIdx.x; i < k;
         i += gw * blockDim.x)
        exps[i] = __expf(unfkey((unsigned)(keys[i] >> 32)) - row_max);
}

// expmax/exptotal row-decomposed (the max lives in the row stripe's
// kWsExpMax slot - zeroed by the per-attempt stripe memset; the total
// accumulates into the compact tail array, zeroed by batch_preset;
// penalty context through pb)
__global__ void expmax_b_kernel(const float* __restrict__ x,
                                unsigned long long* __restrict__ ws,
                                long long stride, int n, float inv_t,
                                int gpr, const int* __restrict__ active,
                                PenCtxB pb) {
    const int row = blockIdx.x / gpr;
    if (!active[row]) return;
    const int lid = blockIdx.x % gpr;
    const float* x_row = x + (size_t)row * n;
    unsigned long long* ws_row = ws + (size_t)row * stride;
    const PenCtx pen = b_pen(pb, row);
    __shared__ unsigned int warp_best[kSelWarps];
    unsigned int best = 0u;
    for (int i = lid * blockDim.x + threadIdx.x; i < n;
         i += gpr * blockDim.x) {
        const unsigned int fk = fkey(step_logit(x_row, i, inv_t, pen));
        if (fk > best) best = fk;
    }
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        best = max(best, __shfl_down_sync(0xffffffffu, best, off));
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) warp_best[warp] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int b = warp_best[0];
        #pragma unroll
        for (int w = 1; w < kSelWarps; ++w) b = max(b, warp_best[w]);
        atomicMax(&ws_row[kWsExpMax], (unsigned long long)b);
    }
}

__global__ void exptotal_b_kernel(const float* __restrict__ x,
                                  unsigned long long* __restrict__ ws,
                                  long long stride, int n, float inv_t,
                                  float* __restrict__ totals, int gpr,
                                  const int* __restrict__ active,
                                  PenCtxB pb) {
    const int row = blockIdx.x / gpr;
    if (!active[row]) return;
    const int lid = blockIdx.x % gpr;
    const float* x_row = x + (size_t)row * n;
    unsigned long long* ws_row = ws + (size_t)row * stride;
    const PenCtx pen = b_pen(pb, row);
    const float row_max = unfkey((unsigned)ws_row[kWsExpMax]);
    float s = 0.0f;
    for (int i = lid * blockDim.x + threadIdx.x; i < n;
         i += gpr * blockDim.x)
        s += __expf(step_logit(x_row, i, inv_t, pen) - row_max);
    __shared__ float warp_sum[kSelWarps];
    s = warp_reduce_sum(s);
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) warp_sum[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        #pragma unroll
        for (int w = 0; w < kSelWarps; ++w) t += warp_sum[w];
        atomicAdd(&totals[row], t);
    }
}

// sample_serial_kernel row-decomposed: one block per row, thread 0 of
// the block walks that row (keys_off/exps_off select the sorted side of
// the key pair and its mate - uniform across rows for a uniform m)
__global__ void sample_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k, int n, float p,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, float* __restrict__ cumws,
    const float* __restrict__ totals, const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);
    extern __shared__ float cps[];
    const int cps_stride = walk_cp_stride(k);
    const float total = totals[row];
    float cum = 0.0f;
    int ncp = 0;
    const int edge = walk_until_cp(exps, k, p * total, &cum, cps,
                                   cps_stride, &ncp);
    if (edge < 0 && k < n) {
        cumws[row] = cum;
        return;
    }
    const int nucleus = (edge < 0) ? k : edge + 1;
    const float nucleus_mass = cum;
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp,
                                 cps_stride);
    // float-boundary fallback: the last nucleus element, same as the
    // CPU reference and the topk walker
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// sample_minp_serial_kernel row-decomposed (value-threshold walk; on
// an uncovered window leaves the sentinel and the whole-window cum
// mass for widen_window_minp's host-side bound)
__global__ void sample_minp_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k, int n, float min_p,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, float* __restrict__ cumws,
    const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);
    extern __shared__ float cps[];
    const int cps_stride = walk_cp_stride(k);
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, min_p, &nucleus_mass, cps,
                                      cps_stride, &ncp);
    if (edge < 0 && k < n) {
        cumws[row] = nucleus_mass;
        return;
    }
    const int nucleus = (edge < 0) ? k : edge;
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp,
                                 cps_stride);
    // float-boundary fallback: the last nucleus element, same as the
    // CPU reference and the topk walker
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// sample_topa_serial_kernel row-decomposed (the cutoff derives from
// the row's total: threshold in exp units = top_a / total[row]; on an
// uncovered window leaves the sentinel and the whole-window cum mass
// for the host-side bound)
__global__ void sample_topa_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k, int n, float top_a,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, float* __restrict__ cumws,
    const float* __restrict__ totals, const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const float threshold_e = top_a / totals[row];
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);
    extern __shared__ float cps[];
    const int cps_stride = walk_cp_stride(k);
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, threshold_e, &nucleus_mass,
                                      cps, cps_stride, &ncp);
    if (edge < 0 && k < n) {
        cumws[row] = nucleus_mass;
        return;
    }
    const int nucleus = (edge < 0) ? k : (edge > 0 ? edge : 1);
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp,
                                 cps_stride);
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// sample_nsigma_serial_kernel row-decomposed (the cutoff derives from
// the row's moment accumulators: mu_d = s1 / n, sigma =
// sqrt(max(s2/n - mu_d^2, 0)), threshold in exp units =
// exp(mu_d - nsigma * sigma); on an uncovered window leaves the
// sentinel and the whole-window cum mass for the host-side bound)
__global__ void sample_nsigma_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k, int n, float nsigma,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, float* __restrict__ cumws,
    const double* __restrict__ n1vals, const double* __restrict__ n2vals,
    const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const double mu_d = n1vals[row] / (double)n;
    const double var = fmax(n2vals[row] / (double)n - mu_d * mu_d, 0.0);
    const float threshold_e = expf((float)mu_d -
                                   nsigma * (float)sqrt(var));
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);
    extern __shared__ float cps[];
    const int cps_stride = walk_cp_stride(k);
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, threshold_e, &nucleus_mass,
                                      cps, cps_stride, &ncp);
    if (edge < 0 && k < n) {
        cumws[row] = nucleus_mass;
        return;
    }
    const int nucleus = (edge < 0) ? k : (edge > 0 ? edge : 1);
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp,
                                 cps_stride);
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// sample_topk_serial_kernel row-decomposed (the k-window is covered by
// construction - no threshold, no widening)
__global__ void sample_topk_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);
    extern __shared__ float cps[];
    const int cps_stride = walk_cp_stride(k);
    float window_mass = 0.0f;
    int ncp = 0;
    walk_until_cp(exps, k, INFINITY, &window_mass, cps, cps_stride, &ncp);
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * window_mass;
    const int hit = walk_from_cp(exps, k, target, cps, ncp, cps_stride);
    const int idx = (hit >= 0) ? hit : k - 1;
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// eta-cutoff sampling tail (v1.6), row-decomposed: the cutoff derives
// in-kernel from the row's totals/svals tail entries
// (H = log(T) - s / T, cutoff = eta * min(1, exp(-H)) * T),
// both produced by the fused mass+stats pass.
__global__ void sample_eta_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k, int n, float eta,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, float* __restrict__ cumws,
    const float* __restrict__ totals, const float* __restrict__ svals,
    const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const float total = totals[row];
    const float h = logf(total) - svals[row] / total;
    const float threshold_e = eta * fminf(1.0f, expf(-h)) * total;
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);
    extern __shared__ float cps[];
    const int cps_stride = walk_cp_stride(k);
    float nucleus_mass = 0.0f;
    int ncp = 0;
    const int edge = walk_until_below(exps, k, threshold_e, &nucleus_mass,
                                      cps, cps_stride, &ncp);
    if (edge < 0 && k < n) {
        cumws[row] = nucleus_mass;
        return;
    }
    const int nucleus = (edge < 0) ? k : (edge > 0 ? edge : 1);
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * nucleus_mass;
    const int hit = walk_from_cp(exps, nucleus, target, cps, ncp,
                                 cps_stride);
    const int idx = (hit >= 0) ? hit : nucleus - 1;
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// locally typical sampling tail (v1.6), row-decomposed: the smallest
// band of the value-sorted window (contiguous, because the shifted
// surprise is U-shaped) whose mass reaches typical * total. A band
// touching the window tail is sent back for widening regardless of
// whether its mass already reached the target - canonical members may
// live past the edge in value order - same trust boundary as the
// single-row version (at k == n there is nothing to widen to: the
// walked band's mass is the row total up to summation-order ulp, and
// drawing proceeds as in the topp/minp/eta full-window fallbacks).
__global__ void sample_typical_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k, int n, float typical,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, float* __restrict__ cumws,
    const float* __restrict__ totals, const float* __restrict__ svals,
    const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const float total = totals[row];
    const float m = svals[row] / total;
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);
    const float need = typical * total;
    // find the shifted valley (the U-shape's minimum)
    int amin = 0;
    float best = fabsf(logf(exps[0]) - m);
    for (int i = 1; i < k; ++i) {
        const float d = fabsf(logf(exps[i]) - m);
        if (d < best) { best = d; amin = i; }
    }
    int blo = amin, bhi = amin;
    float band_mass = exps[amin];
    // two-pointer: grow the band in ascending shifted order (merging
    // the valley's two monotone arms)
    while (band_mass < need && (blo > 0 || bhi < k - 1)) {
        const float dl = (blo > 0)
            ? fabsf(logf(exps[blo - 1]) - m) : 1e30f;
        const float dr = (bhi < k - 1)
            ? fabsf(logf(exps[bhi + 1]) - m) : 1e30f;
        if (dl <= dr) { --blo; band_mass += exps[blo]; }
        else { ++bhi; band_mass += exps[bhi]; }
    }
    if ((band_mass < need || bhi == k - 1) && k < n) {
        cumws[row] = band_mass;
        return;
    }
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * band_mass;
    float cum = 0.0f;
    int idx = bhi;
    for (int i = blo; i <= bhi; ++i) {
        cum += exps[i];
        if (cum >= target) { idx = i; break; }
    }
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// TFS serial tail, row-decomposed: the same two passes as the
// single-row kernel (d2 max, then cutoff search) over the row's sorted
// exp stripe, one block per row. An uncovered window (cutoff reached
// the window edge with vocabulary left) leaves the row's token at the
// -1 sentinel and records the window mass in cumws - the host widens
// x8 like sample_typical and retries. The /total scaling cancels in
// the normalization (see the single-row kernel), so no totals pass
// feeds this tail.
__global__ void sample_tfs_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k, int n, float z,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens, float* __restrict__ cumws,
    const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);

    float d2_max = 0.0f;
    for (int i = 0; i + 2 < k; ++i) {
        const float d2 = fabsf(2.0f * exps[i+1] - exps[i] - exps[i+2]);
        if (d2 > d2_max) d2_max = d2;
    }
    int cutoff = k;
    if (d2_max > 0.0f) {
        const float threshold = (1.0f - z) * d2_max;
        for (int i = 0; i + 2 < k; ++i) {
            const float d2 = fabsf(2.0f * exps[i+1] - exps[i] - exps[i+2]);
            if (d2 < threshold) { cutoff = i + 2; break; }
        }
    }
    if (cutoff < 1) cutoff = 1;
    if (cutoff > k) cutoff = k;
    if (cutoff >= k && k < n) {
        float cum_mass = 0.0f;
        for (int i = 0; i < k; ++i) cum_mass += exps[i];
        cumws[row] = cum_mass;
        return;
    }
    float nucleus_mass = 0.0f;
    for (int i = 0; i < cutoff; ++i) nucleus_mass += exps[i];
    const int nucleus = cutoff > 0 ? cutoff : 1;
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * nucleus_mass;
    float cum = 0.0f;
    int idx = nucleus - 1;
    for (int i = 0; i < nucleus; ++i) {
        cum += exps[i];
        if (cum >= target) { idx = i; break; }
    }
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// XTC serial tail, row-decomposed: the coin flip and the
// post-suppression walk from the single-row kernel, one block per row.
// The distribution spans the whole vocabulary (suppression only
// removes a leading prefix), so the host starts this mode at
// window = n and every row resolves on the first attempt; the
// min(top_n, k-1) clamp keeps at least one candidate.
__global__ void sample_xtc_serial_b_kernel(
    const unsigned long long* __restrict__ ws, long long stride,
    int keys_off, int exps_off, int k, int top_n, float probability,
    const unsigned long long* __restrict__ seeds,
    long long* __restrict__ tokens,
    const int* __restrict__ active) {
    const int row = blockIdx.x;
    if (!active[row] || threadIdx.x != 0) return;
    const unsigned long long* keys = ws + (size_t)row * stride + keys_off;
    const float* exps = reinterpret_cast<const float*>(
        ws + (size_t)row * stride + exps_off);

    const float coin = splitmix_uniform(seeds[row] ^ 0x58544300ULL);
    const bool suppress = (coin < probability);
    const int start = suppress ? min(top_n, k - 1) : 0;
    float total_mass = 0.0f;
    for (int i = start; i < k; ++i) total_mass += exps[i];
    const float u = splitmix_uniform(seeds[row]);
    const float target = u * total_mass;
    float cum = 0.0f;
    int idx = k - 1;
    for (int i = start; i < k; ++i) {
        cum += exps[i];
        if (cum >= target) { idx = i; break; }
    }
    tokens[row] = (long long)(0xFFFFFFFFu -
                              (unsigned)(keys[idx] & 0xFFFFFFFFu));
}

// per-chunk attempt sequencer for the nucleus samplers (topp = mode 0,
// minp = mode 1, eta = 2, typical = 3, top-a = 4, nsigma = 5,
// tfs = 6, xtc = 7). Drives the shared kernel sequence above through
// the uniform-window widening loop described in the section note.
// XTC starts at window = n (its draw always resolves inside the
// window, so a widening ladder could never fire - see the single-row
// launcher); TFS widens on the plain x8 ladder like typical.
std::vector<long long> sample_nucleus_batched_chunk(
    const float* x, int rows, int n, float thr, float t, int mode,
    const unsigned long long* seeds, std::uintptr_t stream,
    int top_n = 0) {
    cudaStream_t cs = (cudaStream_t)stream;
    const int gpr = selection_grid(n);
    const float inv_t = 1.0f / t;
    std::vector<long long> tokens(rows, -1);
    std::vector<int> active(rows, 1);
    std::vector<double> total(rows, -1.0);   // lazy host cache (both modes)
    std::vector<float> cum_h(rows, 0.0f), tot_h(rows, 0.0f);
    int window = (mode == 7) ? n : std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;
        // stripe layout = the single-row one MINUS the trailing scan
        // scratch: the batched family computes row totals in the tail
        // (never in kWsScanWords), and the scratch sits after the key
        // buffers, so dropping it moves no offset the kernels touch
        const long long stride = kWsHead + kSelEarlyOut + 2 * (long long)m;
        const size_t stripes = (size_t)rows * (size_t)stride;
        const size_t words = stripes + batch_tail_words(rows);
        unsigned long long* ws = selection_workspace(words);
        const BatchTail tail = batch_tail(ws, stripes, rows);
        // host-buffer uploads ride the stream; the per-attempt sync
        // below proves them done before anything can go out of scope.
        // The message reports the failed copy's own return value -
        // cudaGetLastError() here could name an unrelated stale error
        // and clear sticky state as a side effect.
        const cudaError_t up1 = cudaMemcpyAsync(
            tail.seeds, seeds, (size_t)rows * 8, cudaMemcpyHostToDevice,
            cs);
        const cudaError_t up2 = (up1 == cudaSuccess)
            ? cudaMemcpyAsync(tail.active, active.data(), (size_t)rows * 4,
                              cudaMemcpyHostToDevice, cs)
            : up1;
        if (up1 != cudaSuccess || up2 != cudaSuccess)
            throw std::runtime_error(
                std::string("batch args upload failed: ") +
                cudaGetErrorString(up1 != cudaSuccess ? up1 : up2));
        batch_preset_kernel<<<1, kSelBlock, 0, cs>>>(
            tail.tokens, tail.cumws, tail.totals, tail.svals, tail.n1vals,
            tail.n2vals, tail.active, rows);
        checked_memset_async(ws, stripes * sizeof(unsigned long long), cs, "workspace memset");
        const int grid = rows * gpr;
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                    x, ws, stride, n, level, (unsigned long long)window,
                    inv_t, gpr, tail.active, kNoPenB);
            select_finalize_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                x, ws, stride, n, inv_t, gpr, tail.active, kNoPenB);
            check_launch("batch selection launch");
        }
        if (mode != 1 && mode != 6 && mode != 7) {
            // the mass passes run per attempt (the per-attempt head
            // memset zeroes their tail/head slots). topp (mode 0) and
            // top-a (mode 4) need only the total; eta/typical/nsigma
            // (modes 2/3/5) take the fused pass - one full-row read
            // produces the total, the entropy accumulator and the
            // nsigma moments. TFS and XTC (modes 6/7) walk the sorted
            // exp column directly - their tails accumulate what they
            // need, so no totals pass feeds them.
            expmax_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                x, ws, stride, n, inv_t, gpr, tail.active, kNoPenB);
            if (mode == 0 || mode == 4) {
                exptotal_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                    x, ws, stride, n, inv_t, tail.totals, gpr,
                    tail.active, kNoPenB);
            } else {
                mass_stats_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                    x, ws, stride, n, inv_t, tail.totals, tail.svals,
                    tail.n1vals, tail.n2vals, gpr, tail.active);
            }
            check_launch("batch mass launch");
        }
        if (mode == 0 && !full && window <= kSelEarlyOut) {
            emit_finish_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                x, ws, stride, n, window, inv_t, thr, tail.seeds,
                tail.tokens, tail.cumws, tail.totals, gpr, tail.active,
                kNoPenB);
            check_launch("batch emit+finish launch");
        } else {
            emit_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                x, ws, stride, n, window, inv_t, gpr, tail.active, kNoPenB);
            const int chunks = (m + kSelSortChunk - 1) / kSelSortChunk;
            const int gsort = (int)std::max<long long>(
                1LL, std::min<long long>((long long)rows * chunks,
                                         4 * kMaxGrid));
            chunk_sort_b_kernel<<<gsort, kSelBlock, 0, cs>>>(
                ws, stride, window, m, rows, tail.active);
            int cur = 0;
            for (int run = kSelSortChunk; run < m; run <<= 1) {
                const long long ntiles = m / kSelMergeTile;
                const int gmerge = (int)std::max<long long>(
                    1LL, std::min<long long>((long long)rows * ntiles,
                                             4 * kMaxGrid));
                merge_level_b_kernel<<<gmerge, kSelBlock, 0, cs>>>(
                    ws + kWsKeys + (cur ? m : 0),
                    ws + kWsKeys + (cur ? 0 : m), stride, m, run, rows,
                    tail.active);
                cur ^= 1;
            }
            const int sorted_off = kWsKeys + (cur ? m : 0);
            const int mate_off = kWsKeys + (cur ? 0 : m);
            const int gw = selection_grid(window);
            exp_window_b_kernel<<<rows * gw, kSelBlock, 0, cs>>>(
                ws + sorted_off, ws + mate_off, stride, window, gw,
                tail.active);
            if (mode == 0)
                sample_serial_b_kernel<<<rows, 32,
                                         walk_cp_slots(window) *
                                             sizeof(float),
                                         cs>>>(
                    ws, stride, sorted_off, mate_off, window, n, thr,
                    tail.seeds, tail.tokens, tail.cumws, tail.totals,
                    tail.active);
            else if (mode == 1)
                sample_minp_serial_b_kernel<<<rows, 32,
                                              walk_cp_slots(window) *
                                                  sizeof(float),
                                              cs>>>(
                    ws, stride, sorted_off, mate_off, window, n, thr,
                    tail.seeds, tail.tokens, tail.cumws, tail.active);
            else if (mode == 2)
                sample_eta_serial_b_kernel<<<rows, 32,
                                             walk_cp_slots(window) *
                                                 sizeof(float),
                                             cs>>>(
                    ws, stride, sorted_off, mate_off, window, n, thr,
                    tail.seeds, tail.tokens, tail.cumws, tail.totals,
                    tail.svals, tail.active);
            else if (mode == 3)
                sample_typical_serial_b_kernel<<<rows, 32,
                                                 walk_cp_slots(window) *
                                                     sizeof(float),
                                                 cs>>>(
                    ws, stride, sorted_off, mate_off, window, n, thr,
                    tail.seeds, tail.tokens, tail.cumws, tail.totals,
                    tail.svals, tail.active);
            else if (mode == 4)
                sample_topa_serial_b_kernel<<<rows, 32,
                                              walk_cp_slots(window) *
                                                  sizeof(float),
                                              cs>>>(
                    ws, stride, sorted_off, mate_off, window, n, thr,
                    tail.seeds, tail.tokens, tail.cumws, tail.totals,
                    tail.active);
            else if (mode == 5)
                sample_nsigma_serial_b_kernel<<<rows, 32,
                                                walk_cp_slots(window) *
                                                    sizeof(float),
                                                cs>>>(
                    ws, stride, sorted_off, mate_off, window, n, thr,
                    tail.seeds, tail.tokens, tail.cumws, tail.n1vals,
                    tail.n2vals, tail.active);
            else if (mode == 6)
                sample_tfs_serial_b_kernel<<<rows, 32,
                                             walk_cp_slots(window) *
                                                 sizeof(float),
                                             cs>>>(
                    ws, stride, sorted_off, mate_off, window, n, thr,
                    tail.seeds, tail.tokens, tail.cumws, tail.active);
            else
                sample_xtc_serial_b_kernel<<<rows, 32,
                                             walk_cp_slots(window) *
                                                 sizeof(float),
                                             cs>>>(
                    ws, stride, sorted_off, mate_off, window, top_n,
                    thr, tail.seeds, tail.tokens, tail.active);
            check_launch("batch tail launch");
        }
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(std::string("batch sampling failed: ") +
                                     cudaGetErrorString(err));
        std::vector<long long> tok(rows);
        if (cudaMemcpy(tok.data(), tail.tokens, (size_t)rows * 8,
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("batch token readback failed");
        bool all = true;
        for (int r = 0; r < rows; ++r) {
            // Only ACTIVE rows may update: a window growth between
            // attempts can REALLOCATE the workspace, and the fresh
            // (zeroed) tail must never overwrite a finished row's
            // token with a stale 0. The host-side `tokens` vector is
            // the authoritative merged view.
            if (active[r] && tok[r] >= 0) {
                tokens[r] = tok[r];
                active[r] = 0;
            }
            if (active[r])
                all = false;
        }
        if (all)
            return tokens;
        if (window == n)
            throw std::runtime_error("batch sampling nucleus not covered");
        // widen: per failed row the single-row bound helpers
        // (topp_widen_bound / minp_widen_bound), then the pow2 max.
        // Totals are read back lazily through the SAME host cache for
        // both modes - the global total is retry-invariant, so the
        // first widening refreshes it once and later attempts reuse
        // the cache (topp's DEVICE-side recompute still runs every
        // attempt; the nucleus threshold needs it).
        if (cudaMemcpy(cum_h.data(), tail.cumws, (size_t)rows * 4,
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("batch cum readback failed");
        bool totals_missing = false;
        for (int r = 0; r < rows; ++r)
            if (active[r] && total[r] < 0.0) totals_missing = true;
        if (totals_missing) {
            if (mode == 1) {
                // minp never computes totals during its attempts -
                // produce them now, strictly after the failed one
                // (same stream, its kWsCumW stores are already
                // visible through the sync above)
                expmax_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                    x, ws, stride, n, inv_t, gpr, tail.active, kNoPenB);
                exptotal_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                    x, ws, stride, n, inv_t, tail.totals, gpr, tail.active,
                    kNoPenB);
                check_launch("batch mass launch");
                err = cudaStreamSynchronize(cs);
                if (err != cudaSuccess)
                    throw std::runtime_error(
                        std::string("batch mass failed: ") +
                        cudaGetErrorString(err));
            }
            if (cudaMemcpy(tot_h.data(), tail.totals, (size_t)rows * 4,
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("batch total readback failed");
            for (int r = 0; r < rows; ++r)
                if (active[r]) total[r] = (double)tot_h[r];
        }
        long long want = (long long)window * 8;
        // eta (mode 2) derives its cutoff from the entropy accumulator:
        // read svals alongside the totals to compute the per-row
        // threshold, then reuse min-p's sufficient bound. nsigma
        // (mode 5) likewise reads its moment accumulators.
        std::vector<float> sv_h(rows, 0.0f);
        if (mode == 2) {
            if (cudaMemcpy(sv_h.data(), tail.svals, (size_t)rows * 4,
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("batch svals readback failed");
        }
        std::vector<double> n1_h(rows, 0.0), n2_h(rows, 0.0);
        if (mode == 5) {
            if (cudaMemcpy(n1_h.data(), tail.n1vals, (size_t)rows * 8,
                           cudaMemcpyDeviceToHost) != cudaSuccess ||
                cudaMemcpy(n2_h.data(), tail.n2vals, (size_t)rows * 8,
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error("batch nvals readback failed");
        }
        for (int r = 0; r < rows; ++r) {
            if (!active[r]) continue;
            long long lb = (long long)window * 8;
            if (mode == 0)
                lb = topp_widen_bound(window, (double)thr, total[r],
                                      (double)cum_h[r]);
            else if (mode == 1)
                lb = minp_widen_bound(window, (double)thr, total[r],
                                      (double)cum_h[r]);
            else if (mode == 2) {
                const double h_r =
                    std::log(total[r]) - (double)sv_h[r] / total[r];
                const double cut =
                    (double)thr * std::fmin(1.0, std::exp(-h_r));
                // the bound's divisor is the per-element exp
                // contribution: the probability cutoff times the
                // row's global total
                lb = minp_widen_bound(window, cut * total[r], total[r],
                                      (double)cum_h[r]);
            } else if (mode == 4) {
                // top-a's cutoff in exp units is top_a / total: the
                // bound's divisor is the per-element exp contribution
                // directly
                lb = minp_widen_bound(window, (double)thr / total[r],
                                      total[r], (double)cum_h[r]);
            } else if (mode == 5) {
                // nsigma's cutoff in exp units is
                // exp(mu_d - nsigma * sigma_d), both moments per row
                // (read back as the doubles the accumulators hold)
                const double mu_d = n1_h[r] / (double)n;
                const double sigma =
                    std::sqrt(std::fmax(n2_h[r] / (double)n -
                                            mu_d * mu_d,
                                        0.0));
                const double thr_e =
                    std::exp(mu_d - (double)thr * sigma);
                lb = minp_widen_bound(window, thr_e, total[r],
                                      (double)cum_h[r]);
            }
            // mode 3 (typical): no analytic bound - x8 ladder floor
            want = std::max<long long>(want, lb);
        }
        if (want >= n) {
            window = n;
        } else {
            int mp = 1;
            while (mp < want) mp <<= 1;
            window = std::min(n, mp);
        }
    }
}

// per-chunk sequencer for the fused batched decode step (v1.5): the
// nucleus sequencer's mode-0 flow with a penalty context riding every
// logit read. Workspace layout per attempt: stripes | per-row vocab
// bitmaps | flat ids + row offsets | compact tail. The bitmaps are
// ORed, so the per-attempt memset spans stripes + bitmaps in ONE
// contiguous clear and the build kernel re-runs every attempt (ids
// never change, but the clear is simpler than tracking reallocs - the
// same trade the single-row launcher makes). The ids/offsets ride
// past the memset zone and are re-uploaded per attempt (tiny, and
// safe across the workspace's monotone growth).
std::vector<long long> decode_step_batched_chunk(
    const float* x, int rows, int n, const long long* ids,
    const int* offs, int m_total, float penalty, float p, float t,
    const unsigned long long* seeds, std::uintptr_t stream) {
    cudaStream_t cs = (cudaStream_t)stream;
    const int gpr = selection_grid(n);
    const float inv_t = 1.0f / t;
    const size_t bmw = ((size_t)n + 63) / 64;
    const size_t bm_words = (size_t)rows * bmw;
    const int use_pen = (m_total > 0 && penalty != 1.0f) ? 1 : 0;
    std::vector<long long> tokens(rows, -1);
    std::vector<int> active(rows, 1);
    std::vector<double> total(rows, -1.0);
    std::vector<float> cum_h(rows, 0.0f), tot_h(rows, 0.0f);
    std::vector<int> offs_v(offs, offs + rows + 1);
    int window = std::min(kSelEarlyOut, n);
    for (;;) {
        int m = 1;
        while (m < window) m <<= 1;
        const long long stride = kWsHead + kSelEarlyOut + 2 * (long long)m;
        const size_t stripes = (size_t)rows * (size_t)stride;
        const size_t ids_words = (size_t)m_total;   // one i64 per word
        const size_t offs_words = ((size_t)rows + 2) / 2;
        const size_t tail_base = stripes + bm_words + ids_words +
                                 offs_words;
        const size_t words = tail_base + batch_tail_words(rows);
        unsigned long long* ws = selection_workspace(words);
        unsigned long long* bm_base = ws + stripes;
        long long* ids_d = reinterpret_cast<long long*>(ws + stripes +
                                                        bm_words);
        int* offs_d = reinterpret_cast<int*>(
            ws + stripes + bm_words + ids_words);
        const BatchTail tail = batch_tail_at(ws, tail_base, rows);
        const PenCtxB pb{bm_base, penalty, use_pen, (int)bmw};
        const cudaError_t up1 = cudaMemcpyAsync(
            tail.seeds, seeds, (size_t)rows * 8, cudaMemcpyHostToDevice,
            cs);
        const cudaError_t up2 = (up1 == cudaSuccess)
            ? cudaMemcpyAsync(tail.active, active.data(), (size_t)rows * 4,
                              cudaMemcpyHostToDevice, cs)
            : up1;
        const cudaError_t up3 =
            (up2 == cudaSuccess && m_total > 0)
                ? cudaMemcpyAsync(ids_d, ids, (size_t)m_total * 8,
                                  cudaMemcpyHostToDevice, cs)
                : up2;
        const cudaError_t up4 = (up3 == cudaSuccess)
            ? cudaMemcpyAsync(offs_d, offs_v.data(),
                              (size_t)(rows + 1) * 4,
                              cudaMemcpyHostToDevice, cs)
            : up3;
        if (up1 != cudaSuccess || up2 != cudaSuccess ||
            up3 != cudaSuccess || up4 != cudaSuccess)
            throw std::runtime_error(
                std::string("batch decode args upload failed: ") +
                cudaGetErrorString(up1 != cudaSuccess ? up1
                                    : up2 != cudaSuccess ? up2
                                    : up3 != cudaSuccess ? up3 : up4));
        batch_preset_kernel<<<1, kSelBlock, 0, cs>>>(
            tail.tokens, tail.cumws, tail.totals, tail.svals, tail.n1vals,
            tail.n2vals, tail.active, rows);
        // one contiguous clear over stripes + bitmaps (the bitmaps are
        // ORed, so they must start zero every attempt)
        checked_memset_async(ws,
                             (stripes + bm_words) *
                                 sizeof(unsigned long long),
                             cs, "workspace memset");
        if (use_pen)
            penalty_bitmap_b_kernel<<<
                (int)((m_total + kSelBlock - 1) / kSelBlock), kSelBlock,
                0, cs>>>(ids_d, offs_d, rows, (int)bmw, bm_base);
        const int grid = rows * gpr;
        const bool full = (window == n);
        if (!full) {
            for (int level = 7; level >= 0; --level)
                select_round_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                    x, ws, stride, n, level, (unsigned long long)window,
                    inv_t, gpr, tail.active, pb);
            select_finalize_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                x, ws, stride, n, inv_t, gpr, tail.active, pb);
            check_launch("batch decode selection launch");
        }
        expmax_b_kernel<<<grid, kSelBlock, 0, cs>>>(
            x, ws, stride, n, inv_t, gpr, tail.active, pb);
        exptotal_b_kernel<<<grid, kSelBlock, 0, cs>>>(
            x, ws, stride, n, inv_t, tail.totals, gpr, tail.active, pb);
        check_launch("batch decode mass launch");
        if (!full && window <= kSelEarlyOut) {
            emit_finish_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                x, ws, stride, n, window, inv_t, p, tail.seeds,
                tail.tokens, tail.cumws, tail.totals, gpr, tail.active,
                pb);
            check_launch("batch decode emit+finish launch");
        } else {
            emit_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                x, ws, stride, n, window, inv_t, gpr, tail.active, pb);
            const int chunks = (m + kSelSortChunk - 1) / kSelSortChunk;
            const int gsort = (int)std::max<long long>(
                1LL, std::min<long long>((long long)rows * chunks,
                                         4 * kMaxGrid));
            chunk_sort_b_kernel<<<gsort, kSelBlock, 0, cs>>>(
                ws, stride, window, m, rows, tail.active);
            int cur = 0;
            for (int run = kSelSortChunk; run < m; run <<= 1) {
                const long long ntiles = m / kSelMergeTile;
                const int gmerge = (int)std::max<long long>(
                    1LL, std::min<long long>((long long)rows * ntiles,
                                             4 * kMaxGrid));
                merge_level_b_kernel<<<gmerge, kSelBlock, 0, cs>>>(
                    ws + kWsKeys + (cur ? m : 0),
                    ws + kWsKeys + (cur ? 0 : m), stride, m, run, rows,
                    tail.active);
                cur ^= 1;
            }
            const int sorted_off = kWsKeys + (cur ? m : 0);
            const int mate_off = kWsKeys + (cur ? 0 : m);
            const int gw = selection_grid(window);
            exp_window_b_kernel<<<rows * gw, kSelBlock, 0, cs>>>(
                ws + sorted_off, ws + mate_off, stride, window, gw,
                tail.active);
            sample_serial_b_kernel<<<rows, 32,
                                     walk_cp_slots(window) *
                                         sizeof(float),
                                     cs>>>(
                ws, stride, sorted_off, mate_off, window, n, p,
                tail.seeds, tail.tokens, tail.cumws, tail.totals,
                tail.active);
            check_launch("batch decode tail launch");
        }
        cudaError_t err = cudaStreamSynchronize(cs);
        if (err != cudaSuccess)
            throw std::runtime_error(
                std::string("batch decode failed: ") +
                cudaGetErrorString(err));
        std::vector<long long> tok(rows);
        if (cudaMemcpy(tok.data(), tail.tokens, (size_t)rows * 8,
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("batch decode readback failed");
        bool all = true;
        for (int r = 0; r < rows; ++r) {
            if (active[r] && tok[r] >= 0) {
                tokens[r] = tok[r];
                active[r] = 0;
            }
            if (active[r])
                all = false;
        }
        if (all)
            return tokens;
        if (window == n)
            throw std::runtime_error(
                "batch decode nucleus not covered");
        // widen under the shared window: per failed row the single-row
        // topp bound, then the pow2 max (same policy as the samplers)
        if (cudaMemcpy(cum_h.data(), tail.cumws, (size_t)rows * 4,
                       cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("batch decode cum readback failed");
        bool totals_missing = false;
        for (int r = 0; r < rows; ++r)
            if (active[r] && total[r] < 0.0) totals_missing = true;
        if (totals_missing) {
            if (cudaMemcpy(tot_h.data(), tail.totals, (size_t)rows * 4,
                           cudaMemcpyDeviceToHost) != cudaSuccess)
                throw std::runtime_error(
                    "batch decode total readback failed");
            for (int r = 0; r < rows; ++r)
                if (active[r]) total[r] = (double)tot_h[r];
        }
        long long want = (long long)window * 8;
        for (int r = 0; r < rows; ++r) {
            if (!active[r]) continue;
            const long long lb =
                topp_widen_bound(window, (double)p, total[r],
                                 (double)cum_h[r]);
            want = std::max<long long>(want, lb);
        }
        if (want >= n) {
            window = n;
        } else {
            int mp = 1;
            while (mp < want) mp <<= 1;
            window = std::min(n, mp);
        }
    }
}


// per-chunk sequencer for top-k: one attempt, the k-window is covered
// by construction. Same kernel sequence as the nucleus sequencer above
// plus the k == n parallel-pack fast path the single-row topk launcher
// lacks; the always-on active array is dead weight here (topk rows
// never deactivate) and exists only so the kernels stay identical
// across the two sequencers.
std::vector<long long> sample_topk_batched_chunk(
    const float* x, int rows, int n, int k, float t,
    const unsigned long long* seeds, std::uintptr_t stream) {
    cudaStream_t cs = (cudaStream_t)stream;
    const int gpr = selection_grid(n);
    const float inv_t = 1.0f / t;
    int m = 1;
    while (m < k) m <<= 1;
    // stripe layout = the nucleus sequencer's (scan scratch dropped;
    // see the note there)
    const long long stride = kWsHead + kSelEarlyOut + 2 * (long long)m;
    const size_t stripes = (size_t)rows * (size_t)stride;
    const size_t words = stripes + batch_tail_words(rows);
    unsigned long long* ws = selection_workspace(words);
    const BatchTail tail = batch_tail(ws, stripes, rows);
    std::vector<int> active(rows, 1);
    // same upload pattern as the nucleus sequencer (actual return
    // values in the message, not cudaGetLastError)
    const cudaError_t up1 = cudaMemcpyAsync(
        tail.seeds, seeds, (size_t)rows * 8, cudaMemcpyHostToDevice, cs);
    const cudaError_t up2 = (up1 == cudaSuccess)
        ? cudaMemcpyAsync(tail.active, active.data(), (size_t)rows * 4,
                          cudaMemcpyHostToDevice, cs)
        : up1;
    if (up1 != cudaSuccess || up2 != cudaSuccess)
        throw std::runtime_error(
            std::string("batch args upload failed: ") +
            cudaGetErrorString(up1 != cudaSuccess ? up1 : up2));
    batch_preset_kernel<<<1, kSelBlock, 0, cs>>>(
        tail.tokens, tail.cumws, tail.totals, tail.svals, tail.n1vals,
        tail.n2vals, tail.active, rows);
    checked_memset_async(ws, stripes * sizeof(unsigned long long), cs, "workspace memset");
    const int grid = rows * gpr;
    const bool full = (k == n);
    if (!full) {
        for (int level = 7; level >= 0; --level)
            select_round_b_kernel<<<grid, kSelBlock, 0, cs>>>(
                x, ws, stride, n, level, (unsigned long long)k, inv_t,
                gpr, tail.active, kNoPenB);
        select_finalize_b_kernel<<<grid, kSelBlock, 0, cs>>>(
            x, ws, stride, n, inv_t, gpr, tail.active, kNoPenB);
        check_launch("batch selection launch");
    }
    emit_b_kernel<<<grid, kSelBlock, 0, cs>>>(
        x, ws, stride, n, k, inv_t, gpr, tail.active, kNoPenB);
    const int chunks = (m + kSelSortChunk - 1) / kSelSortChunk;
    const int gsort = (int)std::max<long long>(
        1LL, std::min<long long>((long long)rows * chunks, 4 * kMaxGrid));
    chunk_sort_b_kernel<<<gsort, kSelBlock, 0, cs>>>(
        ws, stride, k, m, rows, tail.active);
    int cur = 0;
    for (int run = kSelSortChunk; run < m; run <<= 1) {
        const long long ntiles = m / kSelMergeTile;
        const int gmerge = (int)std::max<long long>(
            1LL, std::min<long long>((long long)rows * ntiles, 4 * kMaxGrid));
        merge_level_b_kernel<<<gmerge, kSelBlock, 0, cs>>>(
            ws + kWsKeys + (cur ? m : 0), ws + kWsKeys + (cur ? 0 : m),
            stride, m, run, rows, tail.active);
        cur ^= 1;
    }
    const int sorted_off = kWsKeys + (cur ? m : 0);
    const int mate_off = kWsKeys + (cur ? 0 : m);
    const int gw = selection_grid(k);
    exp_window_b_kernel<<<rows * gw, kSelBlock, 0, cs>>>(
        ws + sorted_off, ws + mate_off, stride, k, gw, tail.active);
    sample_topk_serial_b_kernel<<<rows, 32, walk_cp_slots(k) * sizeof(float),
                                  cs>>>(
        ws, stride, sorted_off, mate_off, k, tail.seeds, tail.tokens,
        tail.active);
    check_launch("batch tail launch");
    cudaError_t err = cudaStreamSynchronize(cs);
    if (err != cudaSuccess)
        throw std::runtime_error(std::string("batch top-k failed: ") +
                                 cudaGetErrorString(err));
    std::vector<long long> tok(rows);
    if (cudaMemcpy(tok.data(), tail.tokens, (size_t)rows * 8,
                   cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("batch token readback failed");
    for (int r = 0; r < rows; ++r)
        if (tok[r] < 0)
            throw std::runtime_error("batch top-k produced no token");
    return tok;
}
} // namespace

std::vector<long long> sample_topp_batched_launch(
    const float* x, int rows, int n, float p, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(p > 0.0f && p <= 1.0f))
        throw std::invalid_argument("p must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_nucleus_batched_chunk(
            x + (size_t)c * n, b, n, p, t, 0, seeds.data() + c, stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

std::vector<long long> sample_minp_batched_launch(
    const float* x, int rows, int n, float min_p, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(min_p > 0.0f && min_p <= 1.0f))
        throw std::invalid_argument("min_p must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_nucleus_batched_chunk(
            x + (size_t)c * n, b, n, min_p, t, 1, seeds.data() + c,
            stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

std::vector<long long> sample_topk_batched_launch(
    const float* x, int rows, int n, int k, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (k <= 0)
        throw std::invalid_argument("k must be >= 1");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    if (k > n) k = n;                             // full-vocab sampling
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_topk_batched_chunk(
            x + (size_t)c * n, b, n, k, t, seeds.data() + c, stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

std::vector<long long> decode_step_batched_launch(
    const float* x, int rows, int n, const std::vector<long long>& ids,
    const std::vector<long long>& offs, float penalty, float p, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("decode_step of empty logits");
    if (!(penalty > 0.0f))
        throw std::invalid_argument("penalty must be > 0");
    if (!(p > 0.0f && p <= 1.0f))
        throw std::invalid_argument("p must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    if ((int)offs.size() != rows + 1)
        throw std::invalid_argument(
            "sampled_ids offsets must have rows + 1 entries");
    if (offs.front() != 0 || offs.back() != (long long)ids.size())
        throw std::invalid_argument(
            "sampled_ids offsets must start at 0 and end at its length");
    for (size_t i = 1; i < offs.size(); ++i)
        if (offs[i] < offs[i - 1])
            throw std::invalid_argument(
                "sampled_ids offsets must be non-decreasing");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        // chunk-local offsets; the ids slice rides the flat array
        std::vector<int> local(b + 1);
        for (int r = 0; r <= b; ++r)
            local[r] = (int)(offs[c + r] - offs[c]);
        auto chunk = decode_step_batched_chunk(
            x + (size_t)c * n, b, n, ids.data() + offs[c], local.data(),
            local[b], penalty, p, t, seeds.data() + c, stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

std::vector<long long> sample_eta_batched_launch(
    const float* x, int rows, int n, float eta, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(eta > 0.0f && eta <= 1.0f))
        throw std::invalid_argument("eta must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_nucleus_batched_chunk(
            x + (size_t)c * n, b, n, eta, t, 2, seeds.data() + c, stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

std::vector<long long> sample_topa_batched_launch(
    const float* x, int rows, int n, float top_a, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(top_a > 0.0f && top_a <= 1.0f))
        throw std::invalid_argument("top_a must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_nucleus_batched_chunk(
            x + (size_t)c * n, b, n, top_a, t, 4, seeds.data() + c,
            stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

std::vector<long long> sample_nsigma_batched_launch(
    const float* x, int rows, int n, float nsigma, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(nsigma > 0.0f))
        throw std::invalid_argument("nsigma must be > 0");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_nucleus_batched_chunk(
            x + (size_t)c * n, b, n, nsigma, t, 5, seeds.data() + c,
            stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

std::vector<long long> sample_typical_batched_launch(
    const float* x, int rows, int n, float typical, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(typical > 0.0f && typical <= 1.0f))
        throw std::invalid_argument("typical must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_nucleus_batched_chunk(
            x + (size_t)c * n, b, n, typical, t, 3, seeds.data() + c,
            stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

// Batched TFS (2.1) moved onto the chunked pipeline in 2.2.1: the
// v2.1 per-row loop spent one full pipeline + device sync + readback
// per row. Mode 6, honest x8 widening like sample_typical.
std::vector<long long> sample_tfs_batched_launch(
    const float* x, int rows, int n, float z, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(z > 0.0f && z <= 1.0f))
        throw std::invalid_argument("z must be in (0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_nucleus_batched_chunk(
            x + (size_t)c * n, b, n, z, t, 6, seeds.data() + c, stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

// Batched XTC (2.2) moved onto the chunked pipeline in 2.2.1 for the
// same reason. Mode 7 starts at window = n (the XTC draw always
// resolves inside its window, so a widening ladder could never fire -
// see the single-row launcher).
std::vector<long long> sample_xtc_batched_launch(
    const float* x, int rows, int n, int top_n, float probability,
    float t, const std::vector<unsigned long long>& seeds,
    std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (top_n < 0)
        throw std::invalid_argument("top_n must be >= 0");
    if (!(probability >= 0.0f && probability <= 1.0f))
        throw std::invalid_argument("probability must be in [0, 1]");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        auto chunk = sample_nucleus_batched_chunk(
            x + (size_t)c * n, b, n, probability, t, 7, seeds.data() + c,
            stream, top_n);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

// Batched DRY (v2.3): one scan block + one apply pass per batch over
// the ragged histories, then the plain full-softmax batched draw (the
// min_p=1e-9 chunk sequencer, mode 1). Every row's rewrite is
// bit-identical to the single-row op on that row (same scan, same
// factor chain).
std::vector<long long> sample_dry_batched_launch(
    const float* x, int rows, int n,
    const std::vector<long long>& ids,
    const std::vector<long long>& offs, int allowed_length,
    float multiplier, float t,
    const std::vector<unsigned long long>& seeds, std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (allowed_length < 1 || allowed_length > kDryMaxScan)
        throw std::invalid_argument(
            "allowed_length must be in [1, 64]");
    if (multiplier < 1.0f)
        throw std::invalid_argument("multiplier must be >= 1");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    cudaStream_t cs = (cudaStream_t)stream;
    // the histories ride one stream-ordered upload on the CALLER's
    // stream (2.4.1 fix: the binding used to upload via the legacy
    // default stream, which does not order against torch's
    // non-blocking streams - the scan could read garbage offsets)
    DryDevBuf di(ids.size() * 8);
    if (!ids.empty())
        if (cudaMemcpyAsync(di.p, ids.data(), ids.size() * 8,
                            cudaMemcpyHostToDevice, cs) != cudaSuccess)
            throw std::runtime_error("dry history upload failed");
    std::vector<int> offs32(offs.begin(), offs.end());
    DryDevBuf doff(offs32.size() * 4);
    if (!offs32.empty())
        if (cudaMemcpyAsync(doff.p, offs32.data(),
                            offs32.size() * 4, cudaMemcpyHostToDevice,
                            cs) != cudaSuccess)
            throw std::runtime_error("dry offsets upload failed");
    const long long* d_ids =
        reinterpret_cast<const long long*>(di.p);
    const int* d_offs = reinterpret_cast<const int*>(doff.p);
    // rows are processed in kBMaxBatch chunks so the persistent
    // dry_scratch/dry_pairs buffers stay bounded by 32 rows (2.4.1:
    // a whole-batch scratch retained ~600 MB at 1000 rows x 152k
    // vocab; the family's documented workspace bound is chunk-level)
    std::vector<long long> out((size_t)rows);
    for (int c = 0; c < rows; c += kBMaxBatch) {
        const int b = std::min(kBMaxBatch, rows - c);
        float* y = dry_scratch((size_t)b * n);
        int* pairs = dry_pairs(b);
        // GLOBAL ids base with the chunk's GLOBAL offset window: the
        // kernel derives each row's slice as ids + offs[row], so no
        // extra base shift here (double-offsetting would read the
        // wrong histories)
        dry_scan_b_kernel<<<b, 32, 0, cs>>>(d_ids, d_offs + c,
                                            allowed_length, pairs);
        const long long total = (long long)b * n;
        const int grid = (int)std::min<long long>(
            grid_for(total), 4 * (long long)kMaxGrid);
        dry_apply_b_kernel<<<grid, kBlock, 0, cs>>>(
            x + (size_t)c * n, y, pairs, total, n, multiplier);
        check_launch("dry batched rewrite launch");
        auto chunk = sample_minp_batched_launch(
            y, b, n, 1e-9f, t,
            std::vector<unsigned long long>(
                seeds.begin() + c, seeds.begin() + c + b),
            stream);
        std::copy(chunk.begin(), chunk.end(), out.begin() + c);
    }
    return out;
}

// Batched mirostat (v2.5): every row runs the single-row pipeline on
// the caller's stream, each with its own mu state - the documented
// first implementation (a fused chunk-sequencer mode is future work
// if batched mirostat matters at serving scale; the per-row cost is
// the same class the 2.1-era TFS/XTC loops had, ~1 launch + readback
// per row).
std::vector<std::pair<long long, float>> sample_mirostat_batched_launch(
    const float* x, int rows, int n, const std::vector<float>& mus,
    float tau, float eta, float t,
    const std::vector<unsigned long long>& seeds,
    std::uintptr_t stream) {
    if (rows < 0)
        throw std::invalid_argument("rows must be >= 0");
    if (rows == 0)
        return {};
    if (n <= 0)
        throw std::invalid_argument("sample of empty logits");
    if (!(tau > 0.0f))
        throw std::invalid_argument("tau must be > 0");
    if (!(eta > 0.0f))
        throw std::invalid_argument("eta must be > 0");
    if (!(t > 0.0f))
        throw std::invalid_argument("temperature must be > 0");
    if ((int)mus.size() != rows)
        throw std::invalid_argument("mus must have one entry per row");
    for (float m : mus)
        if (!std::isfinite(m))
            throw std::invalid_argument("mu must be finite");
    if ((int)seeds.size() != rows)
        throw std::invalid_argument("seeds must have one entry per row");
    std::vector<std::pair<long long, float>> out;
    out.reserve((size_t)rows);
    for (int r = 0; r < rows; ++r)
        out.push_back(sample_mirostat_launch(
            x + (size_t)r * n, n, mus[r], tau, eta, t, seeds[r],
            stream));
    return out;
}

// ---------------------------------------------------------------------------
// argmax: single plain kernel (packed-key max + arrival-counter finalize)
// ---------------------------------------------------------------------------

__device__ __forceinline__ void argmax_scan(
    const float* __restrict__ x,
    unsigned long long* __restrict__ best, int n,
    unsigned long long* warp_best) {
    unsigned long long local = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x) {
        unsigned long long key = pack_key(x[i], i);
        if (key > local) local = key;
    }
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        local = max(local, __shfl_down_sync(0xffffffffu, local, off));
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) warp_best[warp] = local;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long b = warp_best[0];
        #pragma unroll
        for (int w = 1; w < kSelWarps; ++w) b = max(b, warp_best[w]);
        atomicMax(best, b);
    }
}

__global__ void argmax_kernel(const float* __restrict__ x,
                              unsigned long long* __restrict__ best,
                              unsigned int* __restrict__ counter,
                              int n, int* __restrict__ out) {
    __shared__ unsigned long long warp_best[kSelWarps];
    argmax_scan(x, best, n, warp_best);

    __threadfence();
    if (threadIdx.x == 0) {
        const unsigned int arrived = atomicAdd(counter, 1u);
        if (arrived == gridDim.x - 1) {   // last block: publish the answer
            __threadfence();              // acquire: see every block's atomicMax
            *out = (int)(0xFFFFFFFFu - (unsigned)((*best) & 0xFFFFFFFFu));
            *best = 0ULL;                 // self-reset: next launch needs no memset
            *counter = 0u;
        }
    }
}

long long argmax_cpu(const std::vector<float>& x) {
    if (x.empty())
        throw std::invalid_argument("argmax of empty vector");
    long long best = 0;
    for (size_t i = 1; i < x.size(); ++i)
        if (x[i] > x[best]) best = (long long)i;
    return best;
}

void argmax_launch(const float* x, int n, int* out, std::uintptr_t stream) {
    if (n <= 0) return;
    unsigned long long* ws = selection_workspace(0);
    // Dedicated self-resetting slots (see kWsArgBest): zero at entry by
    // contract - zeroed once at workspace (re)alloc and reset by every
    // kernel's finalize - so no per-call cudaMemsetAsync is needed. The
    // saved launch is the dominant cost of this op on submission-bound
    // hosts. Selection calls memset the whole head (covering these slots)
    // at their own start, which keeps the invariant across mixed call
    // sequences on the same stream.
    unsigned long long* best = ws + kWsArgBest;
    const int grid = (int)((n + kSelBlock - 1) / kSelBlock);
    argmax_kernel<<<grid, kSelBlock, 0, (cudaStream_t)stream>>>(
        x, best, reinterpret_cast<unsigned int*>(ws + kWsArgCnt), n, out);
    check_launch("argmax kernel launch");
}

// ---------------------------------------------------------------------------
// batched argmax (v1.8): the single-row pattern row-decomposed - one
// launch for a whole [rows, n] batch, per-row packed-key max (ties
// resolve to the earliest index through the key's inverted-index half)
// with a per-row arrival counter publishing the answer from the last
// block of the row. The per-row best/counter slots live past the
// workspace head, where selection calls keep their own data, so they
// CANNOT ride the single-row self-reset contract across mixed call
// sequences - the launcher clears them once per call (one memset for
// the whole batch, never per row) and the finalize still resets them
// defensively. No device-to-host readback: stream-ordered with the
// caller's stream and CUDA-graph capturable once the workspace has
// been reserved by a prior call - a first-ever call may allocate the
// workspace (a synchronous cudaMalloc + memset), which cannot run
// inside an outer graph capture, so warm up before capturing. Like
// every selection op, the workspace is not safe for concurrent
// launches on different streams.
// ---------------------------------------------------------------------------

__global__ void argmax_b_kernel(const float* __restrict__ x,
                                unsigned long long* __restrict__ best,
                                unsigned int* __restrict__ counter,
                                int n, int gpr, long long* __restrict__ out) {
    const int row = blockIdx.x / gpr;
    const int lid = blockIdx.x % gpr;
    const float* x_row = x + (size_t)row * n;
    unsigned long long* best_row = best + row;
    unsigned int* counter_row = counter + row;
    __shared__ unsigned long long warp_best[kSelWarps];
    unsigned long long local = 0;
    for (int i = lid * blockDim.x + threadIdx.x; i < n;
         i += gpr * blockDim.x) {
        const unsigned long long key = pack_key(x_row[i], i);
        if (key > local) local = key;
    }
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        local = max(local, __shfl_down_sync(0xffffffffu, local, off));
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    if (lane == 0) warp_best[warp] = local;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long b = warp_best[0];
        #pragma unroll
        for (int w = 1; w < kSelWarps; ++w) b = max(b, warp_best[w]);
        atomicMax(best_row, b);
        __threadfence();
        const unsigned int arrived = atomicAdd(counter_row, 1u);
        if (arrived == (unsigned int)gpr - 1) {   // last block of the row
            __threadfence();              // acquire: see every atomicMax
            out[row] = (long long)(0xFFFFFFFFu -
                                   (unsigned)((*best_row) & 0xFFFFFFFFu));
            *best_row = 0ULL;             // defensive reset
            *counter_row = 0u;
        }
    }
}

void argmax_batched_launch(const float* x, int rows, int n, long long* out,
                           std::uintptr_t stream) {
    if (rows <= 0 || n <= 0) return;   // callers enforce the contract
    unsigned long long* ws = selection_workspace(2 * (size_t)rows);
    unsigned long long* best = ws + kWsHead;
    unsigned int* counter =
        reinterpret_cast<unsigned int*>(ws + kWsHead + rows);
    cudaStream_t cs = (cudaStream_t)stream;
    checked_memset_async(best, 2 * (size_t)rows * sizeof(unsigned long long),
                         cs, "argmax workspace memset");
    // same per-row launch shape a standalone call would see: gpr
    // blocks per row, grid-stride within the row
    const int gpr = (int)std::min<long long>(
        ((long long)n + kSelBlock - 1) / kSelBlock, kMaxGrid);
    // rows * gpr stays far below INT_MAX for any allocation that fits
    // in device memory (2M rows at the 1024-block cap would need a
    // ~2 TB input), so the int product cannot overflow
    argmax_b_kernel<<<rows * gpr, kSelBlock, 0, cs>>>(
        x, best, counter, n, gpr, out);
    check_launch("batch argmax launch");
}

} // namespace fusedtok
