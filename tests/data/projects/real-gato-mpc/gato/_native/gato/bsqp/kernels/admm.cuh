#pragma once

#include <cstdint>
#include "settings.h"
#include "constants.h"
#include "types.cuh"
#include "utils/cuda.cuh"
#include "utils/linalg.cuh"
#include "glass.cuh"  // top-level GLASS (global glass::, distinct from grid.cuh's grid::glass)
#include "bsqp/rowgroups.cuh"

// MECH_ADMM inner loop (constraint-layer arc CL-1) — OSQP-style splitting of
// the SQP subproblem's interval rows, with the dynamics equality handled
// EXACTLY inside every x-update via the existing Schur solve:
//
//   per SQP iteration (fixed rho = grp.mu):
//     setup_kkt folds rho*G^T*G into Q/R (rowgroups.cuh) -> formSchur once ->
//     bdsv factor ONCE, then K ADMM iterations of
//       q/r  <- base + G^T(y - rho*(z - sel(x)))      [admm_gradient_batched_kernel]
//       gamma <- rebuild from stored Q^-1/R^-1          [compute_gamma_batched]
//       lambda <- factored re-solve                     [solve_bdsv_factored_batched]
//       dz    <- recover                                [compute_dz_batched]
//       w = sel(x + dz); z <- clip(w + y/rho, lo, hi); y += rho*(w - z)
//                                                       [admm_project_dual_batched_kernel]
//
// z/y live in ABSOLUTE row space (z tracks sel(x+dz), bounds are the
// descriptor's lo/hi directly); the numpy oracle for these exact updates is
// test/oracles/mechanisms.py::admm_interval (relative-space equivalent).
// (z, y) persist across SQP iterations and solves (dual warm start);
// reset via the init kernel (z = clip(sel(x_warm)), y = 0).
//
// EE_POS rows (constraint-layer arc CL-1, cooperative-FK kind) ride the same
// loop with g(x) in place of sel(x), LINEARIZED inside the inner loop:
//   init:     z = clip(g(x_warm))            [cooperative ee_pos]
//   gradient: q += J^T (y - rho*(z - g(x)))  [ee_pos_grad; the rho*J^T*J
//             Hessian half is folded once by setup_kkt (cooperative_row_grad_hess)]
//   project:  w = g(x) + J*dz_q  (first-order; exact for selection rows),
//             then the identical clip / dual update / residuals.
// g and J are evaluated at the SQP linearization point x, which is CONSTANT
// across the inner loop — consistent with the frozen Schur factor.
//
// LIN_U rows (CL-2, g = C·u + d) ride the same loop through a dense C^T
// scatter in the gradient kernel (the rho*C^T*C Hessian half is folded once
// by setup_kkt). Interval LIN_U keeps the per-row clip; cone LIN_U
// (grp.cone) swaps the z-update for the SOC projection z = Π_K(w + y/rho)
// per knot vector (soft sigma: segment blend toward Π_K, the interval
// smoothed-projection analogue). Numpy twin: mechanisms.py::admm_soc.
//
// EQUALITY rows (lo == hi) reinitialize (z, y) at EVERY solve (the init
// kernel's eq_rows_only mode): z clips to the degenerate interval (z == lo,
// no information), so a cross-solve warm-started y is a pure violation
// integrator — MEASURED on the EE terminal equality: when the primal parks
// (line-search/linearization-limited pocket), persistent y grows linearly
// without bound (|y| ~ 120 after 11 solves at rho=10) and degrades the
// solution; per-solve reinit bounds y at within-solve scale and the
// violation stops drifting. The within-solve splitting is untouched;
// interval rows keep their dual warm start (they wind to a steady
// multiplier because the primal CAN satisfy them).
//
// v1 semantics (documented in the arc plan): fixed iteration budget
// (approximately-hard); residuals reported per solve; the merit/line search
// excludes the ADMM rows by default (telemetry reports the true violation of
// whatever the line search accepts); set_admm_merit adds the AL-form (z, y)
// term for the rows' own residual.
//
// Residual early exit (W2a, 2026-10-15; BSQP::set_admm_exit, off by default =
// the bitwise v1 fixed budget): after every inner iteration the projection
// kernel tests, PER SOLVE and on the iterate it just produced, FOR EVERY
// ADMM group g (rows of one group share units; a global max would let the
// torque rows' scale excuse the velocity rows),
//   r_prim_g <= eps_abs + eps_rel * max|z_g|
//   r_dual_g <= eps_abs + eps_rel * rho_g * max|z_g|
// (OSQP's abs+rel form with the auxiliary as the scale) AND requires the
// x-update that produced the iterate to have been solved: PCG arm = fewer
// than max_pcg_iters steps, factor arm = an OK factor (a non-PD skip never
// exits). r_dual = rho*max|z - z_prev| is exact only for an exact x-update,
// so an unconverged inner solve must not be allowed to read as a fixed point
// (the inexact-ADMM guard). A converged solve raises its flag in the skip
// mask (d_skip_batch, seeded from d_kkt_converged each SQP iteration): every
// inner kernel skips it from then on, so entries of one batch exit at their
// own iteration without a host sync; the host additionally breaks the launch
// loop every check_every iterations once all entries are flagged. (z, y) at
// exit are the converged iterate (the last projection ran before the test).
// Counts (inner iterations, inner linsys iterations) accumulate per solve
// into d_admm_iters/d_admm_linsys_iters for SQPStats.

using namespace sqp;

namespace gato {
namespace rows {

constexpr uint32_t ADMM_THREADS = 128;

// z-update of one row: hard clamp to [lo, hi], or (sigma > 0) the SOFT
// smoothed projection — argmin_z (rho/2)(z - v)^2 + (sigma/2) dist(z,[lo,hi])^2
// = a rho/(rho+sigma)-slope pull past the bound instead of a clamp
// (sigma -> inf recovers the clamp; the fixed-point y is bounded by sigma).
template<typename T>
__device__ __forceinline__ T admm_z_update(T v, T lo, T hi, T rho, T sigma)
{
        if (sigma > static_cast<T>(0)) {
                if (v > hi) return hi + rho * (v - hi) / (rho + sigma);
                if (v < lo) return lo + rho * (v - lo) / (rho + sigma);
                return v;
        }
        if (v > hi) return hi;
        if (v < lo) return lo;
        return v;
}

// value of one row at (xu + dz) — selection/LIN rows are affine, so eval plus
// the DIRECTIONAL part (eval_row_dir drops the LIN_U constant offset, which
// would otherwise double-count)
template<typename T>
__device__ __forceinline__ T eval_row_stepped(const RowGroupDesc<T>& grp, const T* xu_k, const T* dz_k, uint32_t i)
{
        return eval_row<T>(grp, xu_k, i) + eval_row_dir<T>(grp, dz_k, i);
}

// One ADMM row commit shared by every row kind: y += rho*(w - z), store z,
// and the |primal| / |dual| residual pair. w = linearized row value, z = the
// projected auxiliary. Same statements as the four former inline copies.
template<typename T>
__device__ __forceinline__ void admm_commit_row(T w, T z, uint32_t idx, T rho, T* __restrict__ d_z, T* __restrict__ d_y, T& dp, T& dd)
{
        const T z_prev = d_z[idx];
        d_y[idx] += rho * (w - z);
        d_z[idx] = z;
        dp = w - z;
        if (dp < 0) dp = -dp;
        dd = rho * (z - z_prev);
        if (dd < 0) dd = -dd;
}

// ---- z/y (re)initialization ---------------------------------------------
// z = clip(sel(x_warm), lo, hi), y = 0 — a neutral start: with y = 0 and
// z = sel(x) (feasible x) the first gradient modification vanishes.
// eq_rows_only: touch ONLY equality rows (lo == hi; z = lo, y = 0), leaving
// interval rows' warm-started state intact — fired every solve (see header).

template<typename T, int KIND>
__device__ __forceinline__ void cooperative_admm_init(const RowGroupDesc<T>& grp, int gi,
        const T* d_xu, T* d_z, T* scratch, const grid::robotModel<T>* model,
        const grid_collision::Environment<T>& env)
{
        using E = CooperativeRows<T, KIND>;
        for (int knot = grp.knot_lo; knot < grp.knot_hi; ++knot) {
                const T* x = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                const T* g = E::value(grp, knot, x, scratch, model, &env);
                for (int i = threadIdx.x; i < grp.n_rows; i += blockDim.x) {
                        const int bi = E::bound(i);
                        T z = g[i];
                        if constexpr (KIND != COLLISION) { if (z > grp.hi[bi]) z = grp.hi[bi]; }
                        if (z < grp.lo[bi]) z = grp.lo[bi];
                        d_z[E::state(gi, knot, i)] = z;
                }
                __syncthreads();
        }
}

template<typename T, int KIND>
__device__ __forceinline__ void cooperative_admm_gradient(const RowGroupDesc<T>& grp, int gi, int knot,
        const T* x, const T* d_y, const T* d_z, T rho, T* q, T* scratch,
        const grid::robotModel<T>* model, const grid_collision::Environment<T>& env)
{
        using E = CooperativeRows<T, KIND>;
        T *g, *J, *mod, *h;
        E::gradient(grp, knot, x, scratch, model, &env, g, J, mod, h);
        for (int i = threadIdx.x; i < grp.n_rows; i += blockDim.x) {
                const auto idx = E::state(gi, knot, i);
                mod[i] = row_on<T>(grp, knot, i) ? d_y[idx] - rho * (d_z[idx] - g[i]) : static_cast<T>(0);
        }
        __syncthreads();
        for (int qi = threadIdx.x; qi < E::NV; qi += blockDim.x) {
                T acc = static_cast<T>(0);
                for (int i = 0; i < grp.n_rows; ++i) acc += mod[i] * J[E::jac(i, qi)];
                q[qi] += acc;
        }
        __syncthreads();
}

template<typename T, int KIND>
__device__ __forceinline__ void cooperative_admm_project(const RowGroupDesc<T>& grp, int gi,
        const T* d_xu, const T* d_dz, T* d_y, T* d_z, T rho, T* prim, T* dual, T* scratch,
        const grid::robotModel<T>* model, const grid_collision::Environment<T>& env)
{
        using E = CooperativeRows<T, KIND>;
        for (int knot = grp.knot_lo; knot < grp.knot_hi; ++knot) {
                const T* x = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                const T* dz = d_dz + (size_t)knot * constants::DZ_KNOT_STRIDE;
                T *g, *J, *gr, *h;
                E::gradient(grp, knot, x, scratch, model, &env, g, J, gr, h);
                for (int i = threadIdx.x; i < grp.n_rows; i += blockDim.x) {
                        const int e = (knot - grp.knot_lo) * grp.n_rows + i;
                        const auto idx = E::state(gi, knot, i);
                        if (!row_on<T>(grp, knot, i)) { prim[e] = static_cast<T>(0); dual[e] = static_cast<T>(0); continue; }
                        T w = g[i];
                        for (int qi = 0; qi < E::NV; ++qi) w += J[E::jac(i, qi)] * dz[qi];
                        const int bi = E::bound(i);
                        const T z = admm_z_update<T>(w + d_y[idx] / rho, grp.lo[bi], grp.hi[bi], rho, grp.sigma);
                        admm_commit_row<T>(w, z, idx, rho, d_z, d_y, prim[e], dual[e]);
                }
                __syncthreads();
        }
}

template<typename T>
__global__ __launch_bounds__(ADMM_THREADS) void admm_init_state_batched_kernel(T* __restrict__ d_z_batch,
                                                                           T* __restrict__ d_y_batch,
                                                                           const T* __restrict__ d_xu_traj_batch,
                                                                           const RowGroupDesc<T>* __restrict__ d_groups,
                                                                           int32_t n_groups,
                                                                           const grid::robotModel<T>* __restrict__ d_robot_model,
                                                                           const grid_collision::Environment<T> env,
                                                                           bool eq_rows_only)
{
        const uint32_t solve_idx = blockIdx.x;
        const uint32_t rank = threadIdx.x;
        const uint32_t size = blockDim.x;
        extern __shared__ char s_raw_init[];
        T* s_scratch = reinterpret_cast<T*>(s_raw_init);  // rowgroup_eval_scratch_ct
        T* d_z = d_z_batch + (size_t)solve_idx * TOTAL_ROW_STATE_SIZE;
        T* d_y = d_y_batch + (size_t)solve_idx * TOTAL_ROW_STATE_SIZE;
        const T* d_xu = d_xu_traj_batch + (size_t)solve_idx * constants::XU_TRAJ_SIZE;

        if (eq_rows_only) {
                // z clips to the degenerate interval regardless of the primal —
                // no FK needed even for EE rows. COLLISION rows are never
                // equalities (one-sided) AND their per-row lo/hi are not
                // indexable past 0 — skip them.
                for (int32_t gi = 0; gi < n_groups; gi++) {
                        const RowGroupDesc<T>& grp = d_groups[gi];
                        if (grp.mech != MECH_ADMM) continue;
                        if (grp.kind == COLLISION) continue;
                        const int32_t n_elems = (grp.knot_hi - grp.knot_lo) * grp.n_rows;
                        for (int32_t e = rank; e < n_elems; e += size) {
                                const int32_t knot = grp.knot_lo + e / grp.n_rows;
                                const int32_t i = e % grp.n_rows;
                                if (grp.lo[i] != grp.hi[i]) continue;
                                const uint32_t idx = row_state_index(gi, knot, i);
                                d_z[idx] = grp.lo[i];
                                d_y[idx] = static_cast<T>(0);
                        }
                }
                return;
        }

        for (uint32_t e = rank; e < TOTAL_ROW_STATE_SIZE; e += size) { d_y[e] = static_cast<T>(0); d_z[e] = static_cast<T>(0); }
        __syncthreads();
        for (int32_t gi = 0; gi < n_groups; gi++) {
                const RowGroupDesc<T>& grp = d_groups[gi];
                if (grp.mech != MECH_ADMM) continue;
                if (is_cooperative_kind(grp.kind)) {
                        dispatch_cooperative_kind(grp.kind, [&](auto K) { cooperative_admm_init<T, decltype(K)::value>(grp, gi, d_xu, d_z, s_scratch, d_robot_model, env); });
                        continue;
                }
                if (grp.kind == LIN_U && grp.cone) {
                        // z = Π_K(g(x_warm)) per knot (one owner thread per knot)
                        const int32_t n_knots = grp.knot_hi - grp.knot_lo;
                        for (int32_t k = rank; k < n_knots; k += size) {
                                const int32_t knot = grp.knot_lo + k;
                                const T* xu_k = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                                T g[MAX_ROWS_PER_GROUP];
                                for (int32_t i = 0; i < grp.n_rows; i++) { g[i] = eval_row<T>(grp, xu_k, (uint32_t)i); }
                                glass::thread::soc_project<T>(g, g, grp.n_rows);
                                for (int32_t i = 0; i < grp.n_rows; i++) { d_z[row_state_index(gi, knot, i)] = g[i]; }
                        }
                        continue;
                }
                const int32_t n_elems = (grp.knot_hi - grp.knot_lo) * grp.n_rows;
                for (int32_t e = rank; e < n_elems; e += size) {
                        const int32_t knot = grp.knot_lo + e / grp.n_rows;
                        const int32_t i = e % grp.n_rows;
                        const T* xu_k = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                        const T w = eval_row<T>(grp, xu_k, (uint32_t)i);
                        T z = w;
                        if (z > grp.hi[i]) z = grp.hi[i];
                        if (z < grp.lo[i]) z = grp.lo[i];
                        d_z[row_state_index(gi, knot, i)] = z;
                }
        }
}

// ---- per-iteration gradient rebuild --------------------------------------
// q/r <- base + scatter of (y - rho*(z - sel(x))) onto the row targets.
// (z - sel(x)) is the RELATIVE auxiliary the OSQP form penalizes; see header.
template<typename T>
__global__ __launch_bounds__(ADMM_THREADS) void admm_gradient_batched_kernel(T* __restrict__ d_q_batch,
                                                                          T* __restrict__ d_r_batch,
                                                                          const T* __restrict__ d_q_base_batch,
                                                                          const T* __restrict__ d_r_base_batch,
                                                                          const T* __restrict__ d_xu_traj_batch,
                                                                          const T* __restrict__ d_z_batch,
                                                                          const T* __restrict__ d_y_batch,
                                                                          const RowGroupDesc<T>* __restrict__ d_groups,
                                                                          int32_t n_groups,
                                                                          const int32_t* __restrict__ d_kkt_converged_batch,
                                                                          const grid::robotModel<T>* __restrict__ d_robot_model,
                                                                          const grid_collision::Environment<T> env,
                                                                          const T* __restrict__ d_rho_scale_batch)
{
        // grid (KNOT_POINTS, batch_size)
        const uint32_t knot_idx = blockIdx.x;
        const uint32_t solve_idx = blockIdx.y;
        if (d_kkt_converged_batch && d_kkt_converged_batch[solve_idx]) return;
        const uint32_t rank = threadIdx.x;
        const uint32_t size = blockDim.x;
        // per-solve ADMM rho adaptation scale (P4.3); nullptr -> 1 (bitwise-off)
        const T rho_sc = d_rho_scale_batch ? d_rho_scale_batch[solve_idx] : static_cast<T>(1);
        extern __shared__ char s_raw_grad[];
        T* s_scratch = reinterpret_cast<T*>(s_raw_grad);  // rowgroup_eval_grad_scratch_ct

        T*       d_q_k = get_offset_state<T>(d_q_batch, solve_idx, knot_idx);
        T*       d_r_k = get_offset_control<T>(d_r_batch, solve_idx, knot_idx);
        const T* d_q_base_k = get_offset_state<T>(d_q_base_batch, solve_idx, knot_idx);
        const T* d_r_base_k = get_offset_control<T>(d_r_base_batch, solve_idx, knot_idx);
        const T* d_xu_k = get_offset_xu<T>(d_xu_traj_batch, solve_idx, knot_idx);
        const T* d_z = d_z_batch + (size_t)solve_idx * TOTAL_ROW_STATE_SIZE;
        const T* d_y = d_y_batch + (size_t)solve_idx * TOTAL_ROW_STATE_SIZE;

        for (uint32_t i = rank; i < STATE_SIZE; i += size) { d_q_k[i] = d_q_base_k[i]; }
        for (uint32_t i = rank; i < CONTROL_SIZE; i += size) { d_r_k[i] = d_r_base_k[i]; }
        __syncthreads();

        const bool has_control = (knot_idx < KNOT_POINTS - 1);
        for (int32_t gi = 0; gi < n_groups; gi++) {
                const RowGroupDesc<T>& grp = d_groups[gi];
                if (grp.mech != MECH_ADMM) continue;
                if ((int32_t)knot_idx < grp.knot_lo || (int32_t)knot_idx >= grp.knot_hi) continue;
                if (grp.block == BLOCK_U && !has_control) continue;
                const T rho = grp.mu * rho_sc;  // mu = rho (x per-solve adaptation scale)
                if (is_cooperative_kind(grp.kind)) {
                        dispatch_cooperative_kind(grp.kind, [&](auto K) { cooperative_admm_gradient<T, decltype(K)::value>(grp, gi, knot_idx, d_xu_k, d_y, d_z, rho, d_q_k, s_scratch, d_robot_model, env); });
                        continue;
                }
                if (grp.kind == LIN_U) {
                        // dense C^T scatter onto the control gradient:
                        // r += sum_i C[i,:] * (y_i - rho*(z_i - g_i(x))) — identical
                        // splitting form for interval and cone rows (only the
                        // z-projection differs, in the project kernel)
                        for (int32_t a = rank; a < (int32_t)CONTROL_SIZE; a += size) {
                                T acc = static_cast<T>(0);
                                for (int32_t i = 0; i < grp.n_rows; i++) {
                                        if (!row_on<T>(grp, (int32_t)knot_idx, i)) continue;   // masked-off: proximal only
                                        const uint32_t idx = row_state_index(gi, knot_idx, (uint32_t)i);
                                        const T mod = d_y[idx] - rho * (d_z[idx] - eval_row<T>(grp, d_xu_k, (uint32_t)i));
                                        acc += grp.Cmat[i * CONTROL_SIZE + a] * mod;
                                }
                                d_r_k[a] += acc;
                        }
                        __syncthreads();
                        continue;
                }
                for (int32_t i = rank; i < grp.n_rows; i += size) {
                        if (!row_on<T>(grp, (int32_t)knot_idx, i)) continue;   // masked-off: proximal only
                        const uint32_t idx = row_state_index(gi, knot_idx, i);
                        const T z_rel = d_z[idx] - eval_row<T>(grp, d_xu_k, (uint32_t)i);
                        const T mod = d_y[idx] - rho * z_rel;
                        if (grp.block == BLOCK_X) {
                                d_q_k[x_index_of_row<T>(grp, i)] += mod;
                        } else {
                                d_r_k[i] += mod;
                        }
                }
                __syncthreads();  // groups may share targets in the future; order them
        }
}

// exact (order-independent) block-wide max; every thread returns the same value
template<typename T>
__device__ __forceinline__ T block_max_all(T v, T* s_red)
{
        for (int o = 16; o > 0; o >>= 1) {
                const T w = __shfl_xor_sync(0xffffffffu, v, o);
                v = w > v ? w : v;
        }
        __syncthreads();
        if ((threadIdx.x & 31) == 0) s_red[threadIdx.x >> 5] = v;
        __syncthreads();
        const uint32_t nw = (blockDim.x + 31) >> 5;
        T r = s_red[0];
        for (uint32_t w = 1; w < nw; ++w) r = s_red[w] > r ? s_red[w] : r;
        return r;
}

// ---- projection + dual update + residuals --------------------------------
// One block per solve. Per active row: w = sel(x + dz); z <- clip(w + y/rho);
// y += rho*(w - z). Residuals (per solve): r_prim = max|w - z|,
// r_dual = rho * max|z - z_prev| — deterministic (scratch + rank-0 fold, same
// pattern as the telemetry kernel). Output d_resid[solve*2 + {0,1}].
// d_skip_batch: the inner loop's per-solve skip mask (read: skip this solve;
// written: the residual exit test, header). d_linsys_iters / max_pcg_iters:
// this iteration's x-update report (max_pcg_iters == 0 = factor arm, whose
// report is 1 solved / 2 non-PD). eps_abs == eps_rel == 0 disables the test.
// d_admm_iters / d_admm_linsys_iters (nullable): per-solve accumulators.
template<typename T>
__global__ __launch_bounds__(ADMM_THREADS) void admm_project_dual_batched_kernel(T* __restrict__ d_z_batch,
                                                                             T* __restrict__ d_y_batch,
                                                                             T* __restrict__ d_resid_batch,
                                                                             const T* __restrict__ d_xu_traj_batch,
                                                                             const T* __restrict__ d_dz_batch,
                                                                             const RowGroupDesc<T>* __restrict__ d_groups,
                                                                             int32_t n_groups,
                                                                             int32_t* __restrict__ d_skip_batch,
                                                                             const grid::robotModel<T>* __restrict__ d_robot_model,
                                                                             const grid_collision::Environment<T> env,
                                                                             const T* __restrict__ d_rho_scale_batch,
                                                                             const uint32_t* __restrict__ d_linsys_iters,
                                                                             uint32_t max_pcg_iters,
                                                                             T eps_abs,
                                                                             T eps_rel,
                                                                             int32_t* __restrict__ d_admm_iters,
                                                                             int32_t* __restrict__ d_admm_linsys_iters)
{
        const uint32_t solve_idx = blockIdx.x;
        if (d_skip_batch[solve_idx]) return;
        __shared__ T s_red[32];
        const uint32_t rank = threadIdx.x;
        const uint32_t size = blockDim.x;
        // per-solve ADMM rho adaptation scale (P4.3); nullptr -> 1 (bitwise-off)
        const T rho_sc = d_rho_scale_batch ? d_rho_scale_batch[solve_idx] : static_cast<T>(1);

        extern __shared__ char s_raw[];
        T* s_prim = reinterpret_cast<T*>(s_raw);              // KNOT_POINTS * TELEMETRY_MAX_ROWS
        T* s_dual = s_prim + KNOT_POINTS * TELEMETRY_MAX_ROWS;
        T* s_scratch = s_dual + KNOT_POINTS * TELEMETRY_MAX_ROWS;  // rowgroup_eval_grad_scratch_ct

        T*       d_z = d_z_batch + (size_t)solve_idx * TOTAL_ROW_STATE_SIZE;
        T*       d_y = d_y_batch + (size_t)solve_idx * TOTAL_ROW_STATE_SIZE;
        const T* d_xu = d_xu_traj_batch + (size_t)solve_idx * constants::XU_TRAJ_SIZE;
        const T* d_dz = d_dz_batch + (size_t)solve_idx * constants::TRAJ_SIZE;

        const bool exit_on = (eps_abs > static_cast<T>(0)) || (eps_rel > static_cast<T>(0));
        bool exit_ok = exit_on;   // rank 0: every group passed its residual test
        T run_prim = static_cast<T>(0), run_dual = static_cast<T>(0);
        for (int32_t gi = 0; gi < n_groups; gi++) {
                const RowGroupDesc<T>& grp = d_groups[gi];
                if (grp.mech != MECH_ADMM) continue;
                const T rho = grp.mu * rho_sc;  // mu = rho (x per-solve adaptation scale)
                const int32_t n_elems = (grp.knot_hi - grp.knot_lo) * grp.n_rows;
                if (is_cooperative_kind(grp.kind)) {
                        dispatch_cooperative_kind(grp.kind, [&](auto K) { cooperative_admm_project<T, decltype(K)::value>(grp, gi, d_xu, d_dz, d_y, d_z, rho, s_prim, s_dual, s_scratch, d_robot_model, env); });
                } else if (grp.cone) {  // LIN_U cone: SOC projection per knot vector
                        const int32_t n_knots = grp.knot_hi - grp.knot_lo;
                        const int32_t m = grp.n_rows;
                        for (int32_t k = rank; k < n_knots; k += size) {  // one owner thread per knot
                                const int32_t knot = grp.knot_lo + k;
                                const T* xu_k = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                                const T* dz_k = d_dz + (size_t)knot * constants::DZ_KNOT_STRIDE;
                                T w[MAX_ROWS_PER_GROUP], v[MAX_ROWS_PER_GROUP], p[MAX_ROWS_PER_GROUP];
                                if (!knot_on<T>(grp, knot)) {
                                        for (int32_t i = 0; i < m; i++) { s_prim[k * m + i] = static_cast<T>(0); s_dual[k * m + i] = static_cast<T>(0); }
                                        continue;
                                }
                                for (int32_t i = 0; i < m; i++) {
                                        const uint32_t idx = row_state_index(gi, (uint32_t)knot, (uint32_t)i);
                                        w[i] = eval_row_stepped<T>(grp, xu_k, dz_k, (uint32_t)i);
                                        v[i] = w[i] + d_y[idx] / rho;
                                }
                                glass::thread::soc_project<T>(v, p, m);
                                for (int32_t i = 0; i < m; i++) {
                                        const uint32_t idx = row_state_index(gi, (uint32_t)knot, (uint32_t)i);
                                        // soft sigma > 0: quadratic slack == segment blend
                                        // toward the projection (interval-formula analogue:
                                        // z = (rho*v + sigma*Pi(v))/(rho+sigma); hard = Pi(v))
                                        const T z = (grp.sigma > static_cast<T>(0)) ? (rho * v[i] + grp.sigma * p[i]) / (rho + grp.sigma) : p[i];
                                        admm_commit_row<T>(w[i], z, idx, rho, d_z, d_y, s_prim[k * m + i], s_dual[k * m + i]);
                                }
                        }
                } else {
                        for (int32_t e = rank; e < n_elems; e += size) {
                                const int32_t knot = grp.knot_lo + e / grp.n_rows;
                                const int32_t i = e % grp.n_rows;
                                const T* xu_k = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                                const T* dz_k = d_dz + (size_t)knot * constants::DZ_KNOT_STRIDE;
                                const uint32_t idx = row_state_index(gi, (uint32_t)knot, (uint32_t)i);
                                if (!row_on<T>(grp, knot, i)) { s_prim[e] = static_cast<T>(0); s_dual[e] = static_cast<T>(0); continue; }

                                const T w = eval_row_stepped<T>(grp, xu_k, dz_k, (uint32_t)i);
                                const T z = admm_z_update<T>(w + d_y[idx] / rho, grp.lo[i], grp.hi[i], rho, grp.sigma);
                                admm_commit_row<T>(w, z, idx, rho, d_z, d_y, s_prim[e], s_dual[e]);
                        }
                }
                __syncthreads();
                // exit-test scale of this group (header): max|z_g| over its slot
                // range of the dense row state just written — unused slots are
                // zero from init; the collision band is its own range
                T zmax = static_cast<T>(0);
                if (exit_on && eps_rel > static_cast<T>(0)) {
                        uint32_t lo, hi;
                        if (grp.kind == COLLISION) {
                                lo = collision_row_state_index((uint32_t)grp.knot_lo, 0);
                                hi = collision_row_state_index((uint32_t)grp.knot_hi, 0);
                        } else {
                                lo = row_state_index((uint32_t)gi, (uint32_t)grp.knot_lo, 0);
                                hi = row_state_index((uint32_t)gi, (uint32_t)grp.knot_hi, 0);
                        }
                        T v = static_cast<T>(0);
                        for (uint32_t e = lo + rank; e < hi; e += size) {
                                T a = d_z[e];
                                if (a < 0) a = -a;
                                if (a > v) v = a;
                        }
                        zmax = block_max_all<T>(v, s_red);
                }
                if (rank == 0) {
                        T g_prim = static_cast<T>(0), g_dual = static_cast<T>(0);
                        for (int32_t e = 0; e < n_elems; e++) {  // fixed order: deterministic
                                if (s_prim[e] > g_prim) g_prim = s_prim[e];
                                if (s_dual[e] > g_dual) g_dual = s_dual[e];
                        }
                        if (g_prim > run_prim) run_prim = g_prim;
                        if (g_dual > run_dual) run_dual = g_dual;
                        if (exit_on) {
                                exit_ok = exit_ok && (g_prim <= eps_abs + eps_rel * zmax)
                                                  && (g_dual <= eps_abs + eps_rel * rho * zmax);
                        }
                }
                __syncthreads();
        }
        if (rank == 0) {
                d_resid_batch[2 * solve_idx + 0] = run_prim;
                d_resid_batch[2 * solve_idx + 1] = run_dual;
                const uint32_t li = d_linsys_iters ? d_linsys_iters[solve_idx] : 0u;
                if (d_admm_iters) d_admm_iters[solve_idx] += 1;
                if (d_admm_linsys_iters) d_admm_linsys_iters[solve_idx] += max_pcg_iters ? (int32_t)li : 1;
                if (exit_on) {
                        // the inexact-ADMM guard: the x-update behind this iterate converged
                        const bool linsys_ok = max_pcg_iters ? (li < max_pcg_iters) : (li != 2u);
                        if (linsys_ok && exit_ok) d_skip_batch[solve_idx] = 1;
                }
        }
}

// ---- host wrappers --------------------------------------------------------

template<typename T>
__host__ void admm_init_state_batched(uint32_t batch_size, T* d_z_batch, T* d_y_batch, const T* d_xu_traj_batch, const RowGroupDesc<T>* d_groups, int32_t n_groups, const void* d_GRiD_mem, bool eq_rows_only = false,
                                   const grid_collision::Environment<T>& env = grid_collision::Environment<T>{})
{
        const size_t s_mem_size = sizeof(T) * rowgroup_eval_scratch_ct<T>();
        static size_t attr_bytes = 0;
        opt_in_dynamic_smem(admm_init_state_batched_kernel<T>, s_mem_size, attr_bytes);
        admm_init_state_batched_kernel<T><<<batch_size, ADMM_THREADS, s_mem_size>>>(d_z_batch, d_y_batch, d_xu_traj_batch, d_groups, n_groups, (const grid::robotModel<T>*)d_GRiD_mem, env, eq_rows_only);
        gpuErrchk(cudaGetLastError());  // launch-config failures must not pass silently
}

template<typename T>
__host__ void admm_gradient_batched(uint32_t batch_size, T* d_q_batch, T* d_r_batch, const T* d_q_base_batch, const T* d_r_base_batch, const T* d_xu_traj_batch, const T* d_z_batch, const T* d_y_batch,
                                  const RowGroupDesc<T>* d_groups, int32_t n_groups, const int32_t* d_kkt_converged_batch, const void* d_GRiD_mem,
                                  const grid_collision::Environment<T>& env = grid_collision::Environment<T>{}, const T* d_rho_scale_batch = nullptr)
{
        dim3 grid(KNOT_POINTS, batch_size);
        const size_t s_mem_size = sizeof(T) * rowgroup_eval_grad_scratch_ct<T>();
        static size_t attr_bytes = 0;
        opt_in_dynamic_smem(admm_gradient_batched_kernel<T>, s_mem_size, attr_bytes);
        admm_gradient_batched_kernel<T><<<grid, ADMM_THREADS, s_mem_size>>>(d_q_batch, d_r_batch, d_q_base_batch, d_r_base_batch, d_xu_traj_batch, d_z_batch, d_y_batch, d_groups, n_groups, d_kkt_converged_batch, (const grid::robotModel<T>*)d_GRiD_mem, env, d_rho_scale_batch);
        gpuErrchk(cudaGetLastError());  // launch-config failures must not pass silently
}

template<typename T>
__host__ size_t get_admm_project_dual_smem_size()
{
        return sizeof(T) * (2 * KNOT_POINTS * TELEMETRY_MAX_ROWS + rowgroup_eval_grad_scratch_ct<T>());
}

template<typename T>
__host__ void admm_project_dual_batched(uint32_t batch_size, T* d_z_batch, T* d_y_batch, T* d_resid_batch, const T* d_xu_traj_batch, const T* d_dz_batch,
                                     const RowGroupDesc<T>* d_groups, int32_t n_groups, int32_t* d_skip_batch, const void* d_GRiD_mem,
                                     const grid_collision::Environment<T>& env = grid_collision::Environment<T>{}, const T* d_rho_scale_batch = nullptr,
                                     const uint32_t* d_linsys_iters = nullptr, uint32_t max_pcg_iters = 0, T eps_abs = static_cast<T>(0), T eps_rel = static_cast<T>(0),
                                     int32_t* d_admm_iters = nullptr, int32_t* d_admm_linsys_iters = nullptr)
{
        const size_t s_mem_size = get_admm_project_dual_smem_size<T>();
        // the TELEMETRY_MAX_ROWS residual scratch can exceed the 48KB default at large N
        static size_t attr_bytes = 0;
        opt_in_dynamic_smem(admm_project_dual_batched_kernel<T>, s_mem_size, attr_bytes);
        admm_project_dual_batched_kernel<T><<<batch_size, ADMM_THREADS, s_mem_size>>>(d_z_batch, d_y_batch, d_resid_batch, d_xu_traj_batch, d_dz_batch, d_groups, n_groups, d_skip_batch, (const grid::robotModel<T>*)d_GRiD_mem, env, d_rho_scale_batch,
                                                                                    d_linsys_iters, max_pcg_iters, eps_abs, eps_rel, d_admm_iters, d_admm_linsys_iters);
        gpuErrchk(cudaGetLastError());  // launch-config failures must not pass silently
}

// ---- per-solve rho-scale adaptation (P4.3) --------------------------------
// OSQP residual-balancing rule applied as ONE scalar multiplier per solve on
// top of the bound per-group rho baselines (grp.mu — the R2/2b block-scale
// ratios are preserved by construction). Reads the inner loop's final
// (r_prim, r_dual) from d_resid_batch and updates the scale ONCE per SQP
// iteration: adapt only when the residuals are imbalanced by > 5x
// (OSQP's threshold), step by sqrt(ratio), clamp to [1e-2, 1e2]. The dual
// form is UNSCALED (v = w + y/rho, y += rho*(w - z)), so a rho change needs
// NO y-rescaling; the rho*G^T*G fold refreshes in the next setup_kkt.
// One thread per solve — trivially deterministic.
template<typename T>
__global__ void admm_adapt_rho_scale_batched_kernel(T* __restrict__ d_scale_batch,
                                               const T* __restrict__ d_resid_batch,
                                               const int32_t* __restrict__ d_kkt_converged_batch,
                                               uint32_t batch_size)
{
        const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
        if (b >= batch_size) return;
        if (d_kkt_converged_batch && d_kkt_converged_batch[b]) return;
        const T eps = static_cast<T>(1e-12);
        const T rp = d_resid_batch[2 * b + 0];
        const T rd = d_resid_batch[2 * b + 1];
        if (rp <= eps && rd <= eps) return;  // both residuals ~0: nothing to balance
        const T ratio = (rp + eps) / (rd + eps);
        if (ratio <= static_cast<T>(5) && ratio >= static_cast<T>(0.2)) return;
        T s = d_scale_batch[b] * static_cast<T>(sqrt(static_cast<double>(ratio)));
        if (s > static_cast<T>(1e2)) s = static_cast<T>(1e2);
        if (s < static_cast<T>(1e-2)) s = static_cast<T>(1e-2);
        d_scale_batch[b] = s;
}

template<typename T>
__host__ void admm_adapt_rho_scale_batched(uint32_t batch_size, T* d_scale_batch, const T* d_resid_batch, const int32_t* d_kkt_converged_batch)
{
        const uint32_t threads = 32;
        admm_adapt_rho_scale_batched_kernel<T><<<(batch_size + threads - 1) / threads, threads>>>(d_scale_batch, d_resid_batch, d_kkt_converged_batch, batch_size);
        gpuErrchk(cudaGetLastError());  // launch-config failures must not pass silently
}

}  // namespace rows
}  // namespace gato
