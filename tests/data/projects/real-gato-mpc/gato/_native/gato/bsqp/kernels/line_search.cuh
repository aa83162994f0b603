#pragma once
// Backtracking line search over NUM_ALPHAS candidate steps (one block per solve):
// pick the largest alpha whose merit (merit.cuh partials) beats the current
// trajectory's, apply x += alpha*dz, and adapt the trust-region rho on
// accept/reject (rho_penalty * drho, clamped to [RHO_MIN, RHO_MAX]).

#include <cstdint>
#include "settings.h"
#include "constants.h"
#include "utils/linalg.cuh"
#include "dynamics/manifold.cuh"

using namespace sqp;
using namespace gato;
using namespace gato::constants;

template<typename T, uint32_t NumAlphas>
__global__ __launch_bounds__(LINE_SEARCH_THREADS) void line_search_and_update_batched_kernel(T* d_xu_traj_batch, T* d_dz_batch, T* d_merit_batch, T* d_merit_initial_batch, T* d_step_size_batch, T* d_rho_penalty_batch, T* d_drho_batch, int adapt_rho, const int32_t* __restrict__ d_kkt_converged_batch, const uint32_t* __restrict__ d_direct_iters,
                                                                                             const T* __restrict__ d_defect_batch, T* __restrict__ d_defect_accepted_batch)   // optional (nullable): per-candidate defect in, the accepted candidate's out
{
        // launched with batch_size blocks
        const uint32_t solve_idx = blockIdx.x;
        const uint32_t tid = threadIdx.x;
        // converged solve: freeze trajectory AND rho/drho adaptation (its merit slots were
        // not written this iteration — the merit kernel skips converged solves too)
        if (d_kkt_converged_batch[solve_idx]) return;

        __shared__ T        s_merit[NumAlphas];
        __shared__ uint32_t s_step_idx[NumAlphas];
        __shared__ T        s_step_size;   // thread-0 -> block broadcasts (own slots: reusing
        __shared__ int      s_ls_success;  // s_merit[0] / re-reading d_merit_initial raced
                                           // with thread 0's writes — see below)

        // Initialize for parallel min reduction
        T        local_min_merit = static_cast<T>(1e38);  // max float
        uint32_t local_step_idx = 0;

        // Each thread handles multiple alphas if needed
        for (uint32_t i = tid; i < NumAlphas; i += blockDim.x) {
                T merit = d_merit_batch[solve_idx * NumAlphas + i];
                d_merit_batch[solve_idx * NumAlphas + i] = 0;  // reset merit to 0
                if (merit < local_min_merit) {
                        local_min_merit = merit;
                        local_step_idx = i;
                }
        }
        __syncthreads();

        // Store to shared memory
        if (tid < NumAlphas) {
                s_merit[tid] = local_min_merit;
                s_step_idx[tid] = local_step_idx;
        }
        __syncthreads();

        // Parallel reduction in shared memory
        for (uint32_t s = 1; s < NumAlphas; s *= 2) {
                uint32_t index = 2 * s * tid;
                if (index + s < NumAlphas) {
                        if (s_merit[index + s] < s_merit[index]) {
                                s_merit[index] = s_merit[index + s];
                                s_step_idx[index] = s_step_idx[index + s];
                        }
                }
                __syncthreads();
        }

        // Thread 0 alone judges the line search and broadcasts the verdict:
        // a per-thread `min_merit < d_merit_initial_batch[...]` here would RACE
        // with thread 0's success-path write of that same global slot below
        // (same class as the s_merit[0] reuse — a late reader could see the
        // UPDATED merit, flip its local verdict, and partially update the
        // trajectory). Fixed 2026-08-01 with the 40-hazard shared-mem race.
        if (tid == 0) {
                const T    min_merit = s_merit[0];
                const bool line_search_success = (min_merit < d_merit_initial_batch[solve_idx]);
                s_ls_success = line_search_success ? 1 : 0;

                // Update rho (only if adaptation is enabled)
                if (adapt_rho) {
                        T rho_multiplier = line_search_success ?  // 1 / RHO_FACTOR : RHO_FACTOR;
                                               min(d_drho_batch[solve_idx] / RHO_FACTOR, 1 / RHO_FACTOR)
                                                               :                                       // decrease on success
                                               max(d_drho_batch[solve_idx] * RHO_FACTOR, RHO_FACTOR);  // increase on failure

                        d_drho_batch[solve_idx] = rho_multiplier;
                        d_rho_penalty_batch[solve_idx] = max(d_rho_penalty_batch[solve_idx] * rho_multiplier, RHO_MIN);
                        d_rho_penalty_batch[solve_idx] = min(d_rho_penalty_batch[solve_idx], RHO_MAX);
                }

                // A NON-PD direct factor this iteration (the direct solve reports iteration
                // count 2 on both its paths — the f32 Cholesky of
                // the Schur system failed — stiff row-group folds such as foot rows at rho
                // 1e3 push the KKT condition past f32) is a regularisation signal, not a
                // line-search verdict: the step was never computed. Multiply the trust-region
                // rho by NON_PD_RHO_FACTOR (independent of adapt_rho — AL mode freezes the
                // ordinary adaptation, and its x1.2 growth would need ~25 wasted iterations to
                // reach the 0.1 that restores PD; measured on the go2 stance rows: rho 1e-3 ->
                // every iteration non-PD, 0.1 -> none). The controller restores rho before each
                // solve, so the factor is sized to get there in ONE step: one wasted iteration
                // per solve at most.
                if (d_direct_iters != nullptr && d_direct_iters[solve_idx] == 2u) {
                        d_rho_penalty_batch[solve_idx] = min(max(d_rho_penalty_batch[solve_idx] * NON_PD_RHO_FACTOR, RHO_MIN), RHO_MAX);
                }

                if (!line_search_success) {
                        // rho saturated at RHO_MAX with a failing line search: reset so the
                        // solver can escape (the clamp above makes `>` unreachable; `>=` is
                        // the intended saturation test)
                        if (adapt_rho && d_rho_penalty_batch[solve_idx] >= RHO_MAX) {
                                d_rho_penalty_batch[solve_idx] = RHO_INIT;  // reset rho for next sqp solve
                        }
                        d_step_size_batch[solve_idx] = -1;
                } else {
                        // Compute step size and store in shared memory for all threads to use.
                        // NOT s_merit[0]: every thread reads s_merit[0] above with no barrier
                        // before this write — under independent thread scheduling a late
                        // thread could read the STEP SIZE as its merit, flip its
                        // line_search_success, and partially update the trajectory (the
                        // 40-hazard lineSearch racecheck family; fixed 2026-08-01).
                        s_step_size = 1.0 / (T)(1 << s_step_idx[0]);
                        d_merit_initial_batch[solve_idx] = min_merit;
                        d_step_size_batch[solve_idx] = s_step_size;
                        if (d_defect_batch != nullptr) { d_defect_accepted_batch[solve_idx] = d_defect_batch[solve_idx * NumAlphas + s_step_idx[0]]; }
                }
        }
        __syncthreads();

        // Only proceed with trajectory update if line search was successful
        if (s_ls_success) {
                const T step_size = s_step_size;
                T*      d_xu_traj = get_offset_xu<T>(d_xu_traj_batch, solve_idx, 0);
                T*      d_dz = get_offset_dz<T>(d_dz_batch, solve_idx, 0);
                if constexpr (!FLOATING_BASE) {
#pragma unroll
                        for (uint32_t i = threadIdx.x; i < TRAJ_SIZE; i += blockDim.x) { d_xu_traj[i] += step_size * d_dz[i]; }
                } else {
                        // per-knot manifold update: state xu ⊞ α·dz (in-place
                        // retract), plain axpy on the control tail. Knots are
                        // disjoint slots — no barrier needed between them.
                        for (uint32_t k = 0; k < KNOT_POINTS; k++) {
                                T*       xu_k = d_xu_traj + k * XU_KNOT_STRIDE;
                                const T* dz_k = d_dz + k * DZ_KNOT_STRIDE;
                                gato::plant::state_retract<T>(xu_k, xu_k, dz_k, step_size);
                                if (k < KNOT_POINTS - 1) {
                                        for (uint32_t i = threadIdx.x; i < CONTROL_SIZE; i += blockDim.x)
                                                xu_k[XU_STATE_SIZE + i] += step_size * dz_k[STATE_SIZE + i];
                                }
                        }
                }
        }
}

template<typename T, uint32_t NumAlphas>
__host__ void line_search_and_update_batched(uint32_t batch_size, T* d_xu_traj_batch, T* d_dz_batch, T* d_merit_batch, T* d_merit_initial_batch, T* d_step_size_batch, T* d_rho_penalty_batch, T* d_drho_batch, int adapt_rho, const int32_t* d_kkt_converged_batch, const uint32_t* d_direct_iters = nullptr,
                                             const T* d_defect_batch = nullptr, T* d_defect_accepted_batch = nullptr)
{
        dim3 grid(batch_size);
        dim3 thread_block(LINE_SEARCH_THREADS);
        // the kernel's s_merit/s_step_idx arrays are static __shared__ — no dynamic smem needed

        line_search_and_update_batched_kernel<T, NumAlphas>
            <<<grid, thread_block>>>(d_xu_traj_batch, d_dz_batch, d_merit_batch, d_merit_initial_batch, d_step_size_batch, d_rho_penalty_batch, d_drho_batch, adapt_rho, d_kkt_converged_batch, d_direct_iters,
                                     d_defect_batch, d_defect_accepted_batch);
        gpuErrchk(cudaGetLastError());  // launch-config failures must not pass silently
}
