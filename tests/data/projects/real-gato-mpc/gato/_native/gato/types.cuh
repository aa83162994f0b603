#pragma once
// Host-side POD bundles passed to the kernels: the per-solve problem inputs, the
// batched KKT blocks (Q, R, q, r, A, B, c) and the batched Schur system (S, P_inv,
// gamma).

#include <cstdint>
#include "settings.h"
#include "constants.h"
#include "utils/cuda.cuh"

using namespace sqp;
using namespace gato::constants;

// --------------------------------------------------

template<typename T>
struct ProblemInputs {
        T     timestep;
        T*    d_x_s_batch;             // XU_STATE_SIZE * batch_size (STORED format; == STATE_SIZE fixed base)
        T*    d_reference_traj_batch;  // grid::EE_POS_SIZE * KNOT_POINTS * batch_size
};

// --------------------------------------------------

struct PCGStats {
        double solve_time_us;

        std::vector<int> num_iterations;
        std::vector<int> converged;  // 1 if converged (pcg exit tol), 0 if not

        explicit PCGStats(uint32_t batch_size) : num_iterations(batch_size, 0), converged(batch_size, 0) {}
};

// --------------------------------------------------

template<typename T>
struct LineSearchStats {
        // if line search failure, step_size = -1
        std::vector<T> min_merit;  // min merit
        std::vector<T> step_size;  // argmin of line search

        explicit LineSearchStats(uint32_t batch_size) : min_merit(batch_size, 0.0), step_size(batch_size, 0.0) {}
};

// --------------------------------------------------

template<typename T>
struct SQPStats {
        double solve_time_us;  // using std::chrono::high_resolution_clock

        // for each solve
        std::vector<int> sqp_iterations;
        std::vector<int> kkt_converged;  // 1 if converged, 0 if not
        bool             budget_hit = false;  // the SQP loop stopped on set_time_budget_us (not on convergence)
        // dynamics defect of the returned trajectory (set_defect_telemetry): the merit's
        // constraint term alone, L1 integrator error summed over the knots plus the
        // initial-state gap; empty when telemetry is off. defect_exit: the loop
        // stopped because every solve's defect was within set_defect_exit's tolerance.
        std::vector<T>   defect;
        bool             defect_exit = false;
        // per-stage device times (set_collect_stats): the initial merit, then per SQP
        // iteration [KKT setup, Schur assembly, linear system, merit, line search] in
        // microseconds, 0 for a stage the iteration did not reach; merit_fused: the merit
        // launch this solve used (one block per knot evaluating every candidate)
        double             initial_merit_time_us = 0.0;
        std::vector<float> stage_times_us;
        bool               merit_fused = false;
        // ADMM mode only (kernels/admm.cuh): inner iterations run this solve and the
        // inner linear-system work they took (PCG steps on the pcg arm, back-solves
        // on the factor arm); 0 outside ADMM mode
        std::vector<int> admm_iters;
        std::vector<int> admm_linsys_iters;

        // for each SQP iteration
        std::vector<PCGStats>           pcg_stats;
        std::vector<LineSearchStats<T>> line_search_stats;

        explicit SQPStats(uint32_t batch_size) : sqp_iterations(batch_size, 0), kkt_converged(batch_size, 0), admm_iters(batch_size, 0), admm_linsys_iters(batch_size, 0) {}
};

// --------------------------------------------------

template<typename T>
struct KKTSystem {
        T* d_Q_batch;
        T* d_R_batch;      // overwritten with R^-1 by Schur assembly (one owner per knot)
        T* d_Q_inv_batch;  // separate output: adjacent Schur blocks share Q inputs
        T* d_q_batch;
        T* d_r_batch;
        T* d_A_batch;
        T* d_B_batch;
        T* d_c_batch;
};

// --------------------------------------------------

template<typename T>
struct SchurSystem {
        T* d_S_batch;
        T* d_P_inv_batch;
        T* d_gamma_batch;
};

// --------------------------------------------------
