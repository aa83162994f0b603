#pragma once

#include <utility>
#include <vector>

namespace fusedtok {

// ---------------------------------------------------------------------------
// Elementwise unary activations
//
//   silu(v)   = v * sigmoid(v)                       (aka Swish)
//   gelu(v)   = 0.5 * v * (1 + erf(v / sqrt(2)))     (exact formulation)
//   gelu_tanh(v) = 0.5 * v * (1 + tanh(sqrt(2/pi) * (v + 0.044715 v^3)))
//   relu(v)   = max(v, 0)
//   tanh(v), sigmoid(v) = the usual functions
//
// CPU reference implementations; CUDA paths go through the *_launch
// entry points declared in cuda_launch.hpp.
// ---------------------------------------------------------------------------

std::vector<float> silu_cpu(const std::vector<float>& x);
std::vector<float> gelu_cpu(const std::vector<float>& x);
std::vector<float> gelu_tanh_cpu(const std::vector<float>& x);
std::vector<float> relu_cpu(const std::vector<float>& x);
std::vector<float> tanh_cpu(const std::vector<float>& x);
std::vector<float> sigmoid_cpu(const std::vector<float>& x);

// ---------------------------------------------------------------------------
// Elementwise binary ops: add(a, b) = a + b, mul(a, b) = a * b.
// "add" doubles as the fused add + residual pattern of inference stacks.
// ---------------------------------------------------------------------------

std::vector<float> add_cpu(const std::vector<float>& a, const std::vector<float>& b);
std::vector<float> mul_cpu(const std::vector<float>& a, const std::vector<float>& b);

// ---------------------------------------------------------------------------
// top-k selection
//
// Returns the k largest elements of x with their indices, sorted descending.
// Naive algorithm: k passes over the data, each extracting the current max
// and marking it as visited. O(n * k). Ties resolve to the earliest index
// (deterministic). Returns {values, indices} with indices as int64.
// ---------------------------------------------------------------------------

std::pair<std::vector<float>, std::vector<long long>>
topk_cpu(const std::vector<float>& x, int k);

// ---------------------------------------------------------------------------
// top-p (nucleus) selection
//
// Given a probability vector (summing to ~1), returns the smallest set of
// highest-probability elements whose cumulative mass reaches p (the element
// that crosses the threshold is included). Returns {values, indices}
// sorted descending. Built on top of top-k with k = n.
// ---------------------------------------------------------------------------

std::pair<std::vector<float>, std::vector<long long>>
topp_cpu(const std::vector<float>& probs, float p);

// ---------------------------------------------------------------------------
// Sampling helpers
//
// argmax(x)      -> index of the largest element (earliest index on ties)
// temperature(x) -> x[i] / t elementwise (t > 0; t < 1 sharpens, t > 1 flattens)
// repetition_penalty(logits, ids, p) -> logits with every listed token id
//     scaled by 1/p if positive, p if negative (CTRL-style penalty applied
//     to previously generated tokens before sampling).
// logit_penalties(logits, ids, rep, pres, freq) -> HF-style combined
//     penalties on every listed token id, composed in that order:
//     repetition scale (v > 0 -> v/rep, else v*rep; rep > 0), then a
//     presence shift (v -= pres), then a count-weighted frequency shift
//     (v -= c * freq, c = occurrences of the id in ids). Each distinct
//     id is penalized exactly once no matter how often it appears in ids.
// ---------------------------------------------------------------------------

// Tail-free sampling (v2.1): keep the prefix whose CDF second
// derivative (normalized) stays above 1-z.
long long sample_tfs_cpu(const std::vector<float>& logits, float z,
                         float t, unsigned long long seed);
std::vector<long long> sample_tfs_batched_cpu(
    const std::vector<float>& logits, int rows, int n, float z,
    float t, const std::vector<unsigned long long>& seeds);

// XTC sampling (v2.2): with probability p, skip the top top_n tokens.
long long sample_xtc_cpu(const std::vector<float>& logits, int top_n,
                          float probability, float t,
                          unsigned long long seed);
std::vector<long long> sample_xtc_batched_cpu(
    const std::vector<float>& logits, int rows, int n, int top_n,
    float probability, float t,
    const std::vector<unsigned long long>& seeds);

// Mirostat v2 sampling (v2.5, Basirat 2023): entropy-targeting
// sampling with a caller-owned surprise bound mu. The nucleus is
// every token with p_i >= 2^-mu (an ABSOLUTE probability threshold -
// boundary-inclusive, consistent with the library's other
// value-threshold samplers); empty nucleus falls back to the top-1
// token. The draw renormalizes inside the nucleus; the observed
// surprisal s = -log2(p_sampled) under the FULL softmax updates the
// state: mu' = mu - eta * (s - tau). Returns (token, mu'). The mu'
// arithmetic is f32 on every path (log2f(total) - log2f(exp_i)); CPU
// and GPU mu' agree up to the same exp ulp boundary class as the
// token contract.
std::pair<long long, float> sample_mirostat_cpu(
    const std::vector<float>& logits, float mu, float tau, float eta,
    float t, unsigned long long seed);
std::vector<std::pair<long long, float>> sample_mirostat_batched_cpu(
    const std::vector<float>& logits, int rows, int n,
    const std::vector<float>& mus, float tau, float eta, float t,
    const std::vector<unsigned long long>& seeds);

// DRY sampling (v2.3, "Don't Repeat Yourself"): sequence-aware repeat
// penalty + temperature + full-softmax draw. Only the last
// kDryMaxScan history tokens participate; for every suffix length
// L in [allowed_length, window) each earlier occurrence of the
// current L-suffix contributes its following token, and the token
// keeps the MAX exponent (L - allowed_length + 1). The penalty
// divides positive logits / multiplies negative ones (the
// repetition_penalty convention); the draw is the plain softmax
// inverse-CDF on the penalized row (identical to the
// sample_xtc(top_n=0) path, deterministic per seed).
long long sample_dry_cpu(const std::vector<float>& logits,
                         const std::vector<long long>& token_ids,
                         int allowed_length, float multiplier, float t,
                         unsigned long long seed);
std::vector<long long> sample_dry_batched_cpu(
    const std::vector<float>& logits, int rows, int n,
    const std::vector<long long>& token_ids,
    const std::vector<long long>& offs, int allowed_length,
    float multiplier, float t,
    const std::vector<unsigned long long>& seeds);

long long argmax_cpu(const std::vector<float>& x);

// Batched greedy argmax over a [rows, n] batch: one index per row,
// earliest index winning ties within each row (the single-row rule
// applied verbatim).
std::vector<long long> argmax_batched_cpu(const std::vector<float>& x,
                                          int rows, int n);

std::vector<float> temperature_cpu(const std::vector<float>& x, float t);

std::vector<float> repetition_penalty_cpu(const std::vector<float>& logits,
                                          const std::vector<long long>& token_ids,
                                          float penalty);

std::vector<float> logit_penalties_cpu(const std::vector<float>& logits,
                                       const std::vector<long long>& token_ids,
                                       float repetition, float presence,
                                       float frequency);

// Batched form of logit_penalties over a [rows, n] logit batch with
// ragged per-row id histories (decode_step_batched's flat-ids +
// rows+1-offsets layout). Every row's output is bit-identical to the
// single-row op on that row.
std::vector<float> logit_penalties_batched_cpu(
    const std::vector<float>& logits, int rows, int n,
    const std::vector<long long>& token_ids,
    const std::vector<long long>& offs, float repetition, float presence,
    float frequency);

// ---------------------------------------------------------------------------
// Fused nucleus sampling (deterministic per seed):
//   probs = softmax(logits / t); nucleus = smallest top-p prefix;
//   u = uniform hash of seed; return the token where the nucleus cumulative
//   probability reaches u. The RNG is a splitmix-style hash - deterministic
//   and reproducible, NOT cryptographically secure.
// Returns the sampled token id.
// ---------------------------------------------------------------------------

long long sample_topp_cpu(const std::vector<float>& logits,
                          float p, float t, unsigned long long seed);

// Top-k variant: renormalize over the first k entries of the descending
// order (earliest-index ties) and draw with the same seeded hash.
long long sample_topk_cpu(const std::vector<float>& logits, int k, float t,
                          unsigned long long seed);

// Min-p variant (v1.3): keep every token with probability >= min_p
// times the maximum probability, renormalize within that nucleus and
// draw with the same seeded hash.
long long sample_minp_cpu(const std::vector<float>& logits, float min_p,
                          float t, unsigned long long seed);

// top-a variant: keep every token with probability >= top_a times the
// SQUARE of the maximum probability, renormalize within that nucleus
// and draw with the same seeded hash.
long long sample_topa_cpu(const std::vector<float>& logits, float top_a,
                          float t, unsigned long long seed);

// top-n-sigma variant (Shi et al. 2024): keep every token whose
// temperature-scaled logit stays at or above mu - nsigma * sigma
// (the row's mean and standard deviation), renormalize within that
// prefix and draw with the same seeded hash.
long long sample_nsigma_cpu(const std::vector<float>& logits,
                            float nsigma, float t,
                            unsigned long long seed);

// eta-cutoff sampling (v1.6, Hewitt et al. 2022): keep every token with
// p_i >= eta * min(1, exp(-H)), H the distribution entropy in nats,
// renormalize within that prefix and draw with the same seeded hash.
long long sample_eta_cpu(const std::vector<float>& logits, float eta,
                         float t, unsigned long long seed);

// locally typical sampling (v1.6, Meister et al. 2022): keep the
// smallest value-ordered band whose mass reaches typical * total (the
// band groups tokens by |surprise - entropy|), renormalize inside it
// and draw with the same seeded hash.
long long sample_typical_cpu(const std::vector<float>& logits,
                             float typical, float t,
                             unsigned long long seed);
std::vector<long long> sample_eta_batched_cpu(
    const std::vector<float>& logits, int rows, int n, float eta, float t,
    const std::vector<unsigned long long>& seeds);
std::vector<long long> sample_typical_batched_cpu(
    const std::vector<float>& logits, int rows, int n, float typical,
    float t, const std::vector<unsigned long long>& seeds);

// Batched variants (v1.4): logits is rows x n row-major, one seed per
// row, one token per row returned. Semantics are the row-wise singles
// (identical arithmetic per row by construction).
std::vector<long long> sample_topp_batched_cpu(
    const std::vector<float>& logits, int rows, int n, float p, float t,
    const std::vector<unsigned long long>& seeds);
std::vector<long long> sample_topk_batched_cpu(
    const std::vector<float>& logits, int rows, int n, int k, float t,
    const std::vector<unsigned long long>& seeds);
std::vector<long long> sample_minp_batched_cpu(
    const std::vector<float>& logits, int rows, int n, float min_p,
    float t, const std::vector<unsigned long long>& seeds);
std::vector<long long> sample_topa_batched_cpu(
    const std::vector<float>& logits, int rows, int n, float top_a,
    float t, const std::vector<unsigned long long>& seeds);
std::vector<long long> sample_nsigma_batched_cpu(
    const std::vector<float>& logits, int rows, int n, float nsigma,
    float t, const std::vector<unsigned long long>& seeds);

// Batched fused decode step (v1.5): the composed per-row reference
// repetition_penalty -> temperature -> sample_topp over ragged
// histories (flat ids + rows + 1 offsets, same contract as the GPU
// launcher). Each row is bit-identical to the single-row composition.
std::vector<long long> decode_step_batched_cpu(
    const std::vector<float>& logits, int rows, int n,
    const std::vector<long long>& ids,
    const std::vector<long long>& offs, float penalty, float p, float t,
    const std::vector<unsigned long long>& seeds);

// ---------------------------------------------------------------------------
// INT8 symmetric per-tensor quantization (the storage half; the compute
// half - IMMA qgemm / decode GEMV - is declared just below):
//   scale = max(|x|) / 127; q = clamp(round(x * (1/scale)), -127, 127)
// ---------------------------------------------------------------------------

std::pair<std::vector<signed char>, float>
quantize_int8_cpu(const std::vector<float>& x);

std::vector<float> dequantize_int8_cpu(const std::vector<signed char>& q,
                                       float scale);

// ---------------------------------------------------------------------------
// INT8 matmul (compute path): y = (A_q . B_q^T) int32-exact * (sa*sb).
// Exact integer accumulation, one float scale at the end - GPU and CPU
// results are bit-identical.
// ---------------------------------------------------------------------------

std::vector<float> qgemm_cpu(const std::vector<signed char>& aq,
                             const std::vector<signed char>& bq,
                             int m, int n, int k, float sa, float sb);

// Per-channel variant: sb holds n scales (one per output row of B_q);
// y[i,j] = (A_q . B_q^T) * f32(sa * sb[j]).
std::vector<float> qgemm_perchannel_cpu(const std::vector<signed char>& aq,
                                        const std::vector<signed char>& bq,
                                        const std::vector<float>& sb,
                                        int m, int n, int k, float sa);

} // namespace fusedtok
