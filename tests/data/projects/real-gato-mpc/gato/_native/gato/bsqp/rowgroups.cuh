#pragma once

#include <cstdint>
#include <type_traits>
#include "settings.h"
#include "constants.h"
#include "utils/cuda.cuh"
#include "utils/linalg.cuh"
#include "glass.cuh"

// Constraint row-group layer.
//
// A row-group = {evaluator kind, target block, mechanism binding, knot mask,
// interval bounds}. Every group is PURE-X or PURE-U within a knot (a mixed
// group would put cross terms into the block-diagonal KKT) — the `block` field states which,
// and formSchur's block-diagonal Hessian assumption depends on it. A row that
// couples (x_k, u_k) is a design error this layer rejects by construction.
//
// Mechanism bindings on the shared descriptors:
//   MECH_TELEMETRY       — rows evaluated + true-violation reported, never enforced
//                          (zero solver-path impact; validates evaluators).
//   MECH_BARRIER_RELAXED — relaxed log-barrier folded into the KKT cost blocks
//                          (bounded Hessian, C² quadratic extension below `delta`;
//                          infeasible-start safe — the soft prior mode).
//   MECH_ADMM            — OSQP-style interval projection as a fixed-budget inner
//                          loop on the reused bdsv factor (kernels/admm.cuh).
//   MECH_AL              — PHR augmented Lagrangian: grad/GN-Hessian + merit value
//                          folds here, outer dual update once per SOLVE
//                          (al_dual_update_batched_kernel; the solve is the inner
//                          minimization); equality rows (lo == hi) always
//                          active.

using namespace sqp;

namespace gato {
namespace rows {

constexpr uint32_t MAX_ROW_GROUPS = 8;
constexpr uint32_t MAX_ROWS_PER_GROUP = constants::STATE_SIZE;

enum Kind : int32_t {
        BOX_Q = 0,   // g_i = q_i      (block X, rows = NQ)
        BOX_QD = 1,  // g_i = qd_i     (block X, rows = NQ)
        BOX_U = 2,   // g_i = u_i      (block U, rows = ACTUATED_SIZE — the URDF torque
                     // limits; fc slots (contact-force builds) have no table row and
                     // are bounded via user LIN_U rows instead; no terminal control)
        EE_POS = 3,  // g_i = ee_pos_i(q_k), i < 3 (block X; equality when lo == hi).
                     // NOT a selection row: a block-COOPERATIVE kind (see
                     // CooperativeRows below) — never through the per-thread
                     // eval_row switch. Installed terminal-only by
                     // enable_ee_terminal_equality (single EE, ee 0; any
                     // mechanism); per-knot position rows are CONTACT_POS.
        LIN_U = 4,   // g_i = C[i,:]·u_k + d_i (block U, host-supplied map; CL-2).
                     // Per-thread evaluable like the boxes, but the Jacobian is
                     // C (dense fold onto R/r, not diagonal). With grp.cone the
                     // row VECTOR carries second-order-cone semantics
                     // (row 0 = axis t, rows 1.. = x̄; g ∈ K ⟺ ‖x̄‖ ≤ t);
                     // interval bounds are unused (∓inf). The audit rule keeps
                     // it pure-U: config-dependent maps (EE wrench cones) are
                     // FROZEN at a host-chosen configuration — contact-frame
                     // parameterization per the CL-0 cross-term audit.
        COLLISION = 5,  // g_i = d_i(q_k): per-sphere min environment clearance
                     // (block X; CL-2 collision half). Cooperative kind over
                     // grid_collision::. n_rows = plant::NCC and MAY EXCEED
                     // MAX_ROWS_PER_GROUP: bounds are UNIFORM one-sided
                     // (lo[0] = clearance margin, hi[0] = +inf; the per-row
                     // lo/hi/Cmat arrays are NOT indexed past 0) and the
                     // dual/slack state lives in the dedicated collision band
                     // (collision_row_state_index below), not the dense
                     // per-group slots. AT MOST ONE collision group (the band
                     // is single; the environment is global per solve batch).
                     // Active-obstacle argmin: re-picked at each linearization
                     // point — constant within one QP/ADMM inner loop by
                     // construction; relinearized per SQP iteration (see the
                     // plant.cuh adapter note; pairs-ABI = fallback).
        CONTACT_POS = 6,  // g_i = p_f(q_k)[axis] - tgt[k][i], i = 3f + axis over the
                     // NCF baked contact frames (block X; CL-4 §1.3). Cooperative
                     // kind over GRiD's contact_frame_positions surface, folded
                     // at EVERY active knot (stance feet stay put per knot), with
                     // a PER-KNOT target table (tgt) and the interval [lo, hi] on
                     // the RESIDUAL: stance = lo == hi == 0, swing clearance =
                     // one-sided z rows. n_rows = 3*NCF fits the dense per-group
                     // slots (state, masks, bounds all per row).
};

__device__ __forceinline__ bool is_selection_kind(int32_t kind)
{
        return kind <= BOX_U;
}

enum Block : int32_t { BLOCK_X = 0, BLOCK_U = 1 };

enum Mechanism : int32_t {
        MECH_TELEMETRY = 0,
        MECH_BARRIER_RELAXED = 1,
        MECH_ADMM = 2,  // OSQP-style interval projection (kernels/admm.cuh); mu = the ADMM rho
        MECH_AL = 3,    // PHR augmented Lagrangian; mu = the AL penalty rho, duals in the
                        // per-solve (lam_hi, lam_lo) buffers, outer update once per solve
};

// per-solve ADMM dual/slack state extent: one (z, y) pair per potential row
// slot, dense [group][knot][row] — indexable without per-group prefix sums
constexpr uint32_t ROW_STATE_SIZE = MAX_ROW_GROUPS * KNOT_POINTS * MAX_ROWS_PER_GROUP;

// COLLISION rows have n_rows = plant::NCC > MAX_ROWS_PER_GROUP, so their
// (z, y) / (lam_hi, lam_lo) state lives in a dedicated band APPENDED after the
// dense per-group slots (one collision group max — see the Kind doc). Every
// per-solve row-state buffer is TOTAL_ROW_STATE_SIZE-strided.
constexpr uint32_t COLLISION_ROW_STATE_SIZE = KNOT_POINTS * (uint32_t)gato::plant::NCC;
constexpr uint32_t TOTAL_ROW_STATE_SIZE = ROW_STATE_SIZE + COLLISION_ROW_STATE_SIZE;

__host__ __device__ __forceinline__ uint32_t row_state_index(uint32_t grp_idx, uint32_t knot, uint32_t i)
{
        return (grp_idx * KNOT_POINTS + knot) * MAX_ROWS_PER_GROUP + i;
}

__host__ __device__ __forceinline__ uint32_t collision_row_state_index(uint32_t knot, uint32_t i)
{
        return ROW_STATE_SIZE + knot * (uint32_t)gato::plant::NCC + i;
}

template<typename T>
struct RowGroupDesc {
        int32_t kind;
        int32_t block;    // audit rule: pure-X or pure-U, never both
        int32_t mech;
        int32_t n_rows;   // rows per active knot (<= MAX_ROWS_PER_GROUP)
        int32_t knot_lo;  // active knots [knot_lo, knot_hi)
        int32_t knot_hi;
        T       lo[MAX_ROWS_PER_GROUP];  // interval bounds (equalities: lo == hi)
        T       hi[MAX_ROWS_PER_GROUP];
        T       mu;     // the mechanism weight: barrier mu / ADMM rho / AL rho
        T       delta;  // relaxed-barrier switch distance (> 0)
        T       sigma;  // soft/slack toggle (TurboMPC delta_xi pattern):
                        // <= 0 = HARD (exact legacy path); > 0 = elastic
                        // weight — AL: L1 elastic slack == effective
                        // multiplier saturates at sigma; ADMM: quadratic
                        // slack == smoothed z-projection (cone: segment blend
                        // toward the SOC projection). Cone-AL rows are hard-only.
        // LIN_U payload (unread for other kinds)
        int32_t cone;   // 0 = interval rows; 1 = SOC on the row vector
        T       Cmat[MAX_ROWS_PER_GROUP * constants::CONTROL_SIZE];  // row-major map
        T       dvec[MAX_ROWS_PER_GROUP];                            // constant offset
        // Per-knot ROW-ACTIVITY MASK : bit i of active[k] = row i
        // is live at knot k (inside [knot_lo, knot_hi) — the window still gates
        // first). All-ones = the historic behaviour, bitwise. An inactive
        // (knot, row) gets exactly the treatment the group already gives knots
        // below knot_lo: ADMM keeps its gradient-free proximal fold (strip
        // rho-homogeneity, the R1 y-windup lesson) but skips the z/y update,
        // the gradient term, the merit term and the residuals; AL / barrier /
        // telemetry contribute nothing; the AL dual is RESET to 0 there (a foot
        // entering swing starts its next stance fresh). Vector kinds (SOC cones)
        // and COLLISION groups are gated per KNOT by bit 0. Written per MPC
        // tick by the gait schedule (set_row_group_mask); ADMM re-inits z/y on
        // every mask write.
        uint64_t active[KNOT_POINTS];
        // Per-knot TARGET table (CONTACT_POS only; unread by other kinds): row i's
        // reference at knot k is tgt[k * MAX_ROWS_PER_GROUP + i] and the row value
        // is the residual p_i(q_k) - tgt. Written by add_contact_pos_group /
        // set_row_group_targets (a foothold frozen at touchdown, a swing curve
        // sampled per knot); zero = the raw world position.
        T       tgt[KNOT_POINTS * MAX_ROWS_PER_GROUP];
};
static_assert(MAX_ROWS_PER_GROUP <= 64, "row-activity mask packs one row per bit");

// row i of `grp` live at `knot`? (window-independent — callers gate the window)
template<typename T>
__host__ __device__ __forceinline__ bool row_on(const RowGroupDesc<T>& grp, int32_t knot, int32_t i)
{
        const int32_t bit = (grp.cone || grp.kind == COLLISION) ? 0 : i;   // vector kinds: bit 0 gates the knot
        return ((grp.active[knot] >> bit) & 1ull) != 0ull;
}
template<typename T>
__host__ __device__ __forceinline__ bool knot_on(const RowGroupDesc<T>& grp, int32_t knot)
{
        return (grp.active[knot] & 1ull) != 0ull;
}
__host__ __device__ __forceinline__ void set_mask_all(uint64_t* active)
{
        for (uint32_t k = 0; k < KNOT_POINTS; k++) { active[k] = ~0ull; }
}

// ---- stored/tangent slot maps (floating base) -----------------------
//
// Selection rows are ACTUATED-ONLY (n_rows = ACTUATED_SIZE): the floating
// base pose/velocity/twist slots have no limit-table rows and are never
// boxed. Each row has TWO indices — where it READS in the STORED xu
// (quaternion layout, [q(NQ); qd(NV); u]) and where it FOLDS in the TANGENT
// blocks (dz / q-gradient / Q-diagonal, [dq(NV); dqd(NV); du]). The base
// offsets are (NQ - ACTUATED_SIZE) stored / (NV - ACTUATED_SIZE) tangent —
// 7 and 6 on a free-flyer, BOTH ZERO on fixed base, so every map below
// collapses to the historic value and fixed-base modules are unchanged.

__host__ __device__ __forceinline__ constexpr int32_t stored_q_index(int32_t i)
{
        return (int32_t)(constants::NQ - constants::ACTUATED_SIZE) + i;
}
__host__ __device__ __forceinline__ constexpr int32_t stored_qd_index(int32_t i)
{
        return (int32_t)(constants::NQ + constants::NV - constants::ACTUATED_SIZE) + i;
}
__host__ __device__ __forceinline__ constexpr int32_t tangent_q_index(int32_t i)
{
        return (int32_t)(constants::NV - constants::ACTUATED_SIZE) + i;
}
__host__ __device__ __forceinline__ constexpr int32_t tangent_qd_index(int32_t i)
{
        return (int32_t)(2 * constants::NV - constants::ACTUATED_SIZE) + i;
}

// ---- evaluators --------------------------------------------------------

// g for row i of a group at one knot, from that knot's STORED (x, u) slice of
// the trajectory. Boxes are selection rows; LIN_U is the dense-map row (CL-2);
// the cooperative kinds evaluate through CooperativeRows<T, KIND>::value.
template<typename T>
__device__ __forceinline__ T eval_row(const RowGroupDesc<T>& grp, const T* xu_k, uint32_t i)
{
        switch (grp.kind) {
                case BOX_Q: return xu_k[stored_q_index((int32_t)i)];
                case BOX_QD: return xu_k[stored_qd_index((int32_t)i)];
                case BOX_U: return xu_k[constants::XU_STATE_SIZE + i];
                case LIN_U: {
                        T acc = grp.dvec[i];
                        for (int32_t j = 0; j < (int32_t)constants::CONTROL_SIZE; j++) { acc += grp.Cmat[i * constants::CONTROL_SIZE + j] * xu_k[constants::XU_STATE_SIZE + j]; }
                        return acc;
                }
        }
        return static_cast<T>(0);
}

// DIRECTIONAL row value (no constant offset): g(x ⊞ dz) = eval_row(x) +
// eval_row_dir(dz). dz is TANGENT-laid-out, so selection rows read the
// tangent slots (actuated retraction is additive — exact); LIN_U must drop
// dvec or the offset double-counts on stepped evals.
template<typename T>
__device__ __forceinline__ T eval_row_dir(const RowGroupDesc<T>& grp, const T* dz_k, uint32_t i)
{
        switch (grp.kind) {
                case BOX_Q: return dz_k[tangent_q_index((int32_t)i)];
                case BOX_QD: return dz_k[tangent_qd_index((int32_t)i)];
                case BOX_U: return dz_k[constants::STATE_SIZE + i];
                case LIN_U: {
                        T acc = static_cast<T>(0);
                        for (int32_t j = 0; j < (int32_t)constants::CONTROL_SIZE; j++) { acc += grp.Cmat[i * constants::CONTROL_SIZE + j] * dz_k[constants::STATE_SIZE + j]; }
                        return acc;
                }
        }
        return static_cast<T>(0);
}

// ---- constraint scalars: promoted to GLASS (2026-07-28 robotics ops) -------
//
// The SOC cone kit (soc_tail_norm/soc_violation/soc_project/al_soc_value),
// interval/PHR AL scalars (interval_violation/al_is_eq_row/al_hinge_value/
// al_interval_value/al_interval_grad_hess), and the relaxed log-barrier
// family (relaxed_barrier_[interval_]value/grad/hess) now live in
// glass proj/{cone,interval}.cuh -- promoted verbatim from this file (numpy
// twins: test/oracles/mechanisms.py). Call sites here use glass:: directly;
// soc_project sites use glass::thread:: (each (group,knot) vector is owned
// by exactly ONE thread and w/p may alias, which the thread tier permits).
// al_soc_value is the bufferless GLASS form (case-split norm, no
// MAX_ROWS_PER_GROUP locals) -- same math, summation order differs by ULPs.

// ---- cooperative row kinds: EE_POS / COLLISION / CONTACT_POS ---------------
//
// These kinds evaluate through block-cooperative plant evaluators
// (gato::plant::ee_pos[_grad] / collision_dist[_grad] / contact_pos[_grad];
// caller-scratch, barriers inside), so they cannot ride the per-thread
// selection paths above. Everything kind-specific — the FK call, the scratch
// carve and its sizes, the Jacobian layout, the bound slot and the dual/slack
// index — lives in ONE trait, CooperativeRows<T, KIND>; the KKT fold, the merit
// value, the telemetry, the AL dual update and the ADMM kernels are written
// once over it. Per-kind facts:
//   EE_POS      g = EE pose rows 0..2 (6*NEE values, J[6*vi + i]); installed
//               terminal-only; dense per-group (lo, hi, state) slots.
//   COLLISION   g = per-sphere min clearance (NCC values, J[i*NV + vi]). NCC
//               may exceed MAX_ROWS_PER_GROUP, so bounds are UNIFORM (slot 0:
//               lo = margin, hi = +inf), the (z, y) / (lam_hi, lam_lo) state
//               lives in the dedicated collision band, and the whole knot is
//               gated by mask bit 0.
//   CONTACT_POS g = p_f(q_k)[axis] - tgt[k][3f+axis] over the NCF baked contact
//               frames (3*NCF residual rows; J in GRiD's [3*NV*f + 3*vi + axis]
//               layout — the tangent [v_lin; omega; joints] chart, i.e. the KKT
//               tangent chart); folds at EVERY active knot; the raw positions
//               are carved ahead of the residual.
// Scratch: consumers add value_scratch_ct() (value sites) or grad_scratch_ct()
// (fold sites) elements of T to their shared budget; the GRiD arena wants 16B
// alignment (align16_ptr + slop). setup_kkt / merit size ONE dedicated carve
// for the larger of COLLISION / CONTACT_POS (coop_rows[_grad]_scratch_ct — the
// two fold sequentially at the same site, never overlapping) when a group of
// either kind is registered (host-known flag); the ADMM / telemetry / dual
// kernels size for all three unconditionally (rowgroup_eval[_grad]_scratch_ct).

__host__ __device__ __forceinline__ bool is_cooperative_kind(int32_t kind)
{
        return kind == EE_POS || kind == COLLISION || kind == CONTACT_POS;
}

template<typename T>
__device__ __forceinline__ T* align16_ptr(T* p)
{
        uintptr_t u = reinterpret_cast<uintptr_t>(p);
        return reinterpret_cast<T*>((u + 15) & ~static_cast<uintptr_t>(15));
}

constexpr int32_t CONTACT_ROWS = 3 * gato::plant::NCF;
static_assert(CONTACT_ROWS <= (int32_t)MAX_ROWS_PER_GROUP, "CONTACT_POS rows (3 per contact frame) must fit one row group");

// J_i[vi] of row i = 3f + axis in GRiD's [3*NV*f + 3*vi + axis] layout
__host__ __device__ __forceinline__ int32_t contact_J_index(int32_t i, int32_t vi)
{
        return 3 * (int32_t)constants::NV * (i / 3) + 3 * vi + (i % 3);
}

template<typename T, int KIND>
struct CooperativeRows {
        static_assert(KIND == EE_POS || KIND == COLLISION || KIND == CONTACT_POS);
        static constexpr int NV = constants::STATE_SIZE / 2;
        // FK outputs (= Jacobian rows), per-row scalar slots (gr, h) and the raw
        // positions carved ahead of the residual (CONTACT_POS only)
        static constexpr int VALUES = KIND == COLLISION ? gato::plant::NCC : KIND == CONTACT_POS ? CONTACT_ROWS : 6 * gato::plant::NEE;
        static constexpr int ROWS = KIND == COLLISION ? gato::plant::NCC : (int)MAX_ROWS_PER_GROUP;
        static constexpr int PREFIX = KIND == CONTACT_POS ? CONTACT_ROWS : 0;
        static constexpr uint32_t SLOP = 16 / sizeof(T) + 1;   // align-up slack for the GRiD arena

        __host__ __device__ static constexpr uint32_t eval_smem_ct()
        {
                if constexpr (KIND == COLLISION) return gato::plant::collision_dist_smem_ct<T>();
                else if constexpr (KIND == CONTACT_POS) return gato::plant::contact_pos_smem_ct<T>();
                else return gato::plant::ee_pos_smem_ct<T>();
        }
        __host__ __device__ static constexpr uint32_t eval_grad_smem_ct()
        {
                if constexpr (KIND == COLLISION) return gato::plant::collision_dist_grad_smem_ct<T>();
                else if constexpr (KIND == CONTACT_POS) return gato::plant::contact_pos_grad_smem_ct<T>();
                else return gato::plant::ee_pos_grad_smem_ct<T>();
        }
        // value sites carve [prefix | g | arena]; fold sites [prefix | g | J | gr | h | arena]
        __host__ __device__ static constexpr uint32_t value_scratch_ct() { return PREFIX + VALUES + eval_smem_ct() + SLOP; }
        __host__ __device__ static constexpr uint32_t grad_scratch_ct() { return PREFIX + VALUES + VALUES * NV + 2 * ROWS + eval_grad_smem_ct() + SLOP; }

        __device__ static int count(const RowGroupDesc<T>& grp) {
                if constexpr (KIND == COLLISION) return gato::plant::NCC;
                return grp.n_rows;
        }
        __device__ static int bound(int i) { return KIND == COLLISION ? 0 : i; }
        __device__ static uint32_t state(int gi, int knot, int i) {
                if constexpr (KIND == COLLISION) return collision_row_state_index(knot, i);
                return row_state_index(gi, knot, i);
        }
        __device__ static int jac(int i, int qi) {
                if constexpr (KIND == COLLISION) return i * NV + qi;
                if constexpr (KIND == CONTACT_POS) return contact_J_index(i, qi);
                return 6 * qi + i;
        }
        // CONTACT_POS residual g = p(q_k) - tgt[k] from the raw positions; ends on a barrier
        __device__ static void residual(const RowGroupDesc<T>& grp, int knot, const T* pos, T* g) {
                for (int i = threadIdx.x; i < CONTACT_ROWS; i += blockDim.x) { g[i] = pos[i] - grp.tgt[knot * (int)MAX_ROWS_PER_GROUP + i]; }
                __syncthreads();
        }
        // g at the knot's STORED x, into `scratch` (returns its pointer). ALL
        // threads call (barriers inside the FK); `env` is read by COLLISION only.
        __device__ static const T* value(const RowGroupDesc<T>& grp, int knot, const T* x, T* scratch,
                                         const grid::robotModel<T>* model, const grid_collision::Environment<T>* env) {
                T* g = scratch + PREFIX;
                T* arena = align16_ptr<T>(g + VALUES);
                if constexpr (KIND == COLLISION) gato::plant::collision_dist<T>(g, x, arena, model, *env);
                else if constexpr (KIND == EE_POS) gato::plant::ee_pos<T>(g, x, arena, model);
                else { gato::plant::contact_pos<T>(scratch, x, arena, model); residual(grp, knot, scratch, g); }
                return g;
        }
        // g + Jacobian (+ the callers' per-row scalar slots gr/h after J). ALL
        // threads call; ends on a barrier.
        __device__ static void gradient(const RowGroupDesc<T>& grp, int knot, const T* x, T* scratch,
                                         const grid::robotModel<T>* model, const grid_collision::Environment<T>* env,
                                         T*& g, T*& J, T*& gr, T*& h) {
                g = scratch + PREFIX; J = g + VALUES; gr = J + VALUES * NV; h = gr + ROWS;
                T* arena = align16_ptr<T>(h + ROWS);
                if constexpr (KIND == COLLISION) gato::plant::collision_dist_grad<T>(g, J, x, arena, model, *env);
                else if constexpr (KIND == EE_POS) gato::plant::ee_pos_grad<T>(g, J, x, arena, model);
                else { gato::plant::contact_pos_grad<T>(scratch, J, x, arena, model); residual(grp, knot, scratch, g); }
        }
};

// run f(std::integral_constant<int, KIND>{}) for a cooperative `kind` (callers
// gate with is_cooperative_kind; other kinds are a no-op)
template<typename F>
__device__ __forceinline__ void dispatch_cooperative_kind(int32_t kind, F&& f)
{
        switch (kind) {
                case EE_POS: f(std::integral_constant<int, EE_POS>{}); break;
                case COLLISION: f(std::integral_constant<int, COLLISION>{}); break;
                case CONTACT_POS: f(std::integral_constant<int, CONTACT_POS>{}); break;
        }
}

__host__ __device__ constexpr uint32_t ct_max(uint32_t a, uint32_t b) { return a > b ? a : b; }

// the dedicated carve setup_kkt / merit size when a COLLISION or CONTACT_POS
// group is registered (sized for the larger; the kinds fold sequentially)
template<typename T>
__host__ __device__ constexpr uint32_t coop_rows_scratch_ct()
{
        return ct_max(CooperativeRows<T, COLLISION>::value_scratch_ct(), CooperativeRows<T, CONTACT_POS>::value_scratch_ct());
}
template<typename T>
__host__ __device__ constexpr uint32_t coop_rows_grad_scratch_ct()
{
        return ct_max(CooperativeRows<T, COLLISION>::grad_scratch_ct(), CooperativeRows<T, CONTACT_POS>::grad_scratch_ct());
}
// the unconditional carve of the telemetry / dual-update / ADMM kernels (all three kinds)
template<typename T>
__host__ __device__ constexpr uint32_t rowgroup_eval_scratch_ct()
{
        return ct_max(CooperativeRows<T, EE_POS>::value_scratch_ct(), coop_rows_scratch_ct<T>());
}
template<typename T>
__host__ __device__ constexpr uint32_t rowgroup_eval_grad_scratch_ct()
{
        return ct_max(CooperativeRows<T, EE_POS>::grad_scratch_ct(), coop_rows_grad_scratch_ct<T>());
}

// any KIND group whose knot window covers `knot`?
template<typename T, int KIND>
__device__ __forceinline__ bool has_coop_rows(const RowGroupDesc<T>* __restrict__ groups, int32_t n_groups, int32_t knot)
{
        for (int32_t gi = 0; gi < n_groups; gi++) {
                const RowGroupDesc<T>& grp = groups[gi];
                if (grp.kind == KIND && knot >= grp.knot_lo && knot < grp.knot_hi) return true;
        }
        return false;
}

// GN fold of KIND's enforcing groups at one knot onto the state block:
// Q += J^T diag(h) J, q += J^T gr, with fixed-order serial reductions
// (deterministic, thread-count invariant). __noinline__ ON PURPOSE: inlined
// into the setup_kkt TU these folds hit the cicc expansion cliff (see the
// fold_lin_u_* note below). ADMM rows keep the proximal Hessian when masked
// (EE/contact); COLLISION masks gate the entire knot.
template<typename T, int KIND>
__device__ __noinline__ void cooperative_row_grad_hess(const RowGroupDesc<T>* __restrict__ groups, int32_t n_groups,
        int32_t knot, const T* xu_k, const T* __restrict__ d_lam_hi, const T* __restrict__ d_lam_lo,
        T* s_Q, T* s_q, T* scratch, const grid::robotModel<T>* model,
        const grid_collision::Environment<T>* env, T admm_rho_scale = static_cast<T>(1))
{
        using E = CooperativeRows<T, KIND>;
        constexpr int NV = E::NV;
        for (int gi = 0; gi < n_groups; ++gi) {
                const auto& grp = groups[gi];
                if (grp.kind != KIND) continue;
                if (grp.mech != MECH_AL && grp.mech != MECH_BARRIER_RELAXED && grp.mech != MECH_ADMM) continue;
                if (knot < grp.knot_lo || knot >= grp.knot_hi) continue;
                if constexpr (KIND == COLLISION) { if (!knot_on<T>(grp, knot)) continue; }
                T *g, *J, *gr, *h;
                E::gradient(grp, knot, xu_k, scratch, model, env, g, J, gr, h);
                for (int i = threadIdx.x; i < E::count(grp); i += blockDim.x) {
                        const int bi = E::bound(i);
                        if (grp.mech == MECH_ADMM) {
                                gr[i] = static_cast<T>(0); h[i] = grp.mu * admm_rho_scale;
                        } else if (!row_on<T>(grp, knot, i)) {
                                gr[i] = static_cast<T>(0); h[i] = static_cast<T>(0);
                        } else if (grp.mech == MECH_AL) {
                                const auto idx = E::state(gi, knot, i);
                                glass::al_interval_grad_hess<T>(g[i], grp.lo[bi], grp.hi[bi], d_lam_hi[idx], d_lam_lo[idx], grp.mu, grp.sigma, gr[i], h[i]);
                        } else {
                                gr[i] = glass::relaxed_barrier_interval_grad<T>(g[i], grp.lo[bi], grp.hi[bi], grp.mu, grp.delta);
                                h[i] = glass::relaxed_barrier_interval_hess<T>(g[i], grp.lo[bi], grp.hi[bi], grp.mu, grp.delta);
                        }
                }
                __syncthreads();
                for (int e = threadIdx.x; e < NV * NV; e += blockDim.x) {
                        const int qi = e / NV, qj = e % NV;
                        T acc = static_cast<T>(0);
                        for (int i = 0; i < E::count(grp); ++i) acc += h[i] * J[E::jac(i, qi)] * J[E::jac(i, qj)];
                        s_Q[qi * constants::STATE_SIZE + qj] += acc;
                }
                for (int qi = threadIdx.x; qi < NV; qi += blockDim.x) {
                        T acc = static_cast<T>(0);
                        for (int i = 0; i < E::count(grp); ++i) acc += gr[i] * J[E::jac(i, qi)];
                        s_q[qi] += acc;
                }
                __syncthreads();
        }
}

// scalar mechanism value of KIND's rows at one knot (the merit seam: must mirror
// the fold above; MECH_ADMM contributes only with the (z, y) state passed —
// set_admm_merit). Every thread computes the same serial sum.
template<typename T, int KIND>
__device__ __noinline__ T cooperative_row_cost_value(const RowGroupDesc<T>* __restrict__ groups, int32_t n_groups,
        int32_t knot, const T* xu_k, const T* __restrict__ d_lam_hi, const T* __restrict__ d_lam_lo,
        T* scratch, const grid::robotModel<T>* model, const grid_collision::Environment<T>* env,
        const T* __restrict__ d_z_admm = nullptr, const T* __restrict__ d_y_admm = nullptr,
        T admm_rho_scale = static_cast<T>(1))
{
        using E = CooperativeRows<T, KIND>;
        T total = static_cast<T>(0);
        for (int gi = 0; gi < n_groups; ++gi) {
                const auto& grp = groups[gi];
                if (grp.kind != KIND) continue;
                const bool admm_term = grp.mech == MECH_ADMM && d_z_admm != nullptr;
                if (grp.mech != MECH_AL && grp.mech != MECH_BARRIER_RELAXED && !admm_term) continue;
                if (knot < grp.knot_lo || knot >= grp.knot_hi) continue;
                if constexpr (KIND == COLLISION) { if (!knot_on<T>(grp, knot)) continue; }
                const T* g = E::value(grp, knot, xu_k, scratch, model, env);
                for (int i = 0; i < E::count(grp); ++i) {
                        if (!row_on<T>(grp, knot, i)) continue;
                        const auto idx = E::state(gi, knot, i);
                        const int bi = E::bound(i);
                        if (admm_term) {
                                const T r = g[i] - d_z_admm[idx];
                                total += d_y_admm[idx] * r + static_cast<T>(0.5) * grp.mu * admm_rho_scale * r * r;
                        } else if (grp.mech == MECH_AL) {
                                total += glass::al_interval_value<T>(g[i], grp.lo[bi], grp.hi[bi], d_lam_hi[idx], d_lam_lo[idx], grp.mu, grp.sigma);
                        } else {
                                total += glass::relaxed_barrier_interval_value<T>(g[i], grp.lo[bi], grp.hi[bi], grp.mu, grp.delta);
                        }
                }
                if constexpr (KIND == CONTACT_POS) __syncthreads();
        }
        return total;
}

// ---- mechanism cost contributions (the setup_kkt/merit seam) -------------
//
// Box rows have selection Jacobians, so the GN contribution is DIAGONAL on the
// target block: grad_i -> s_q/s_r[idx], hess_i -> s_Q/s_R[idx,idx] (the audit
// rule guarantees a group never touches both blocks). Strided over rows, no
// cross-thread writes to the same slot; the caller owns the following barrier.
// `has_control` gates U-groups off the terminal knot.

// TANGENT index of a BLOCK_X selection row (the q/Q/dz fold target)
template<typename T>
__device__ __forceinline__ int32_t x_index_of_row(const RowGroupDesc<T>& grp, int32_t i)
{
        return (grp.kind == BOX_QD) ? tangent_qd_index(i) : tangent_q_index(i);
}

// ---- LIN_U dense-fold helpers (one per mechanism x cone case) -------------
//
// __noinline__ ON PURPOSE (build-time, not perf): inlined into the setup_kkt
// TU this fold sends cicc into a superlinear optimizer blowup on the big
// (plant,N) configs (measured 2026-07-19, N32_iiwa14: 14s -> >65min/26GB RSS
// with the fold inlined, 13s with it stubbed; the two group-boundary barriers
// and every other CL-2 hunk are innocent). As standalone functions each body
// compiles once and the TU stays at seconds. They run only when LIN_U groups
// are active (never on the default path) and the call overhead is noise next
// to the dense math. No barriers inside: the call site owns the
// group-boundary __syncthreads(), and every early return below is
// block-uniform (computed from data all threads read identically).

template<typename T>
__device__ __noinline__ void fold_lin_u_conic_al(const RowGroupDesc<T>& grp, int32_t gi, int32_t knot, const T* xu_k,
                                                 const T* __restrict__ d_lam_hi, T* s_R, T* s_r, uint32_t rank, uint32_t size)
{
        constexpr int32_t NU = constants::CONTROL_SIZE;
        const int32_t m = grp.n_rows;
        T g[MAX_ROWS_PER_GROUP];
        for (int32_t i = 0; i < m; i++) { g[i] = eval_row<T>(grp, xu_k, (uint32_t)i); }
        // conic PHR: grad_g = -p, H_g = rho*Jpi at w = lam - rho*g
        T w[MAX_ROWS_PER_GROUP], p[MAX_ROWS_PER_GROUP];
        for (int32_t i = 0; i < m; i++) { w[i] = d_lam_hi[row_state_index(gi, (uint32_t)knot, (uint32_t)i)] - grp.mu * g[i]; }
        glass::thread::soc_project<T>(w, p, m);
        for (int32_t a = rank; a < NU; a += size) {
                T acc = static_cast<T>(0);
                for (int32_t i = 0; i < m; i++) { acc -= p[i] * grp.Cmat[i * NU + a]; }
                s_r[a] += acc;
        }
        const T r = glass::soc_tail_norm<T>(w, m);
        // polar case (w in -K deg): Pi_K(w) = 0, so p = 0 above added nothing to
        // s_r and Jpi = 0 - there is no Hessian contribution; skip the e-loop.
        if (r <= -w[0]) return;  // Jpi = 0
        const bool inside = (r <= w[0]);
        // outside both cones: Jpi = 0.5*[[1, xh^T],[xh, ((w0+r)/r)I - (w0/r) xh xh^T]]
        const T inv_r = inside ? static_cast<T>(0) : static_cast<T>(1) / r;
        const T beta = inside ? static_cast<T>(0) : static_cast<T>(0.5) * (w[0] + r) * inv_r;
        const T gam = inside ? static_cast<T>(0) : static_cast<T>(0.5) * w[0] * inv_r;
        for (int32_t e = rank; e < NU * NU; e += size) {
                const int32_t a = e / NU, b = e % NU;
                T acc = static_cast<T>(0);
                if (inside) {  // Jpi = I -> rho*C^T C
                        for (int32_t i = 0; i < m; i++) { acc += grp.Cmat[i * NU + a] * grp.Cmat[i * NU + b]; }
                } else {
                        // column cb = C[:, b]; s1 = xh . cb-bar with xh = w-bar/r
                        T s1 = static_cast<T>(0);
                        for (int32_t i = 1; i < m; i++) { s1 += w[i] * inv_r * grp.Cmat[i * NU + b]; }
                        // (Jpi cb)_0 = 0.5*(cb0 + s1); (Jpi cb)_i = 0.5*xh_i*cb0 + beta*cb_i - gam*s1*xh_i
                        acc += grp.Cmat[0 * NU + a] * static_cast<T>(0.5) * (grp.Cmat[0 * NU + b] + s1);
                        for (int32_t i = 1; i < m; i++) {
                                const T xh = w[i] * inv_r;
                                acc += grp.Cmat[i * NU + a] * (static_cast<T>(0.5) * xh * grp.Cmat[0 * NU + b] + beta * grp.Cmat[i * NU + b] - gam * s1 * xh);
                        }
                }
                s_R[a * NU + b] += grp.mu * acc;
        }
}

template<typename T>
__device__ __noinline__ void fold_lin_u_rb_cone(const RowGroupDesc<T>& grp, const T* xu_k, T* s_R, T* s_r, uint32_t rank, uint32_t size)
{
        constexpr int32_t NU = constants::CONTROL_SIZE;
        const int32_t m = grp.n_rows;
        T g[MAX_ROWS_PER_GROUP];
        for (int32_t i = 0; i < m; i++) { g[i] = eval_row<T>(grp, xu_k, (uint32_t)i); }
        // relaxed barrier on the margin s = g0 - ||g-bar|| (GN: rank-1
        // hessian rb_hess(s) * (C^T n)(C^T n)^T, n = (1, -g-bar/||g-bar||))
        const T rt = glass::soc_tail_norm<T>(g, m);
        const T s = g[0] - rt;
        const T gr = glass::relaxed_barrier_grad<T>(s, grp.mu, grp.delta);
        const T hh = glass::relaxed_barrier_hess<T>(s, grp.mu, grp.delta);
        const T inv_rt = rt > static_cast<T>(1e-9) ? static_cast<T>(1) / rt : static_cast<T>(0);
        T u[NU];  // u = C^T n
        for (int32_t a = 0; a < NU; a++) {
                T acc = grp.Cmat[0 * NU + a];
                for (int32_t i = 1; i < m; i++) { acc -= g[i] * inv_rt * grp.Cmat[i * NU + a]; }
                u[a] = acc;
        }
        for (int32_t a = rank; a < NU; a += size) { s_r[a] += gr * u[a]; }
        for (int32_t e = rank; e < NU * NU; e += size) { s_R[(e / NU) * NU + (e % NU)] += hh * u[e / NU] * u[e % NU]; }
}

template<typename T>
__device__ __noinline__ void fold_lin_u_admm_cone(const RowGroupDesc<T>& grp, T* s_R, uint32_t rank, uint32_t size, T admm_rho_scale)
{
        constexpr int32_t NU = constants::CONTROL_SIZE;
        const int32_t m = grp.n_rows;
        // constant rho*C^T C fold; gradient half per-ADMM-iteration
        for (int32_t e = rank; e < NU * NU; e += size) {
                const int32_t a = e / NU, b = e % NU;
                T acc = static_cast<T>(0);
                for (int32_t i = 0; i < m; i++) { acc += grp.Cmat[i * NU + a] * grp.Cmat[i * NU + b]; }
                s_R[a * NU + b] += grp.mu * admm_rho_scale * acc;
        }
}

template<typename T>
__device__ __noinline__ void fold_lin_u_interval(const RowGroupDesc<T>& grp, int32_t gi, int32_t knot, const T* xu_k,
                                                 const T* __restrict__ d_lam_hi, const T* __restrict__ d_lam_lo,
                                                 T* s_R, T* s_r, uint32_t rank, uint32_t size, T admm_rho_scale)
{
        constexpr int32_t NU = constants::CONTROL_SIZE;
        const int32_t m = grp.n_rows;
        T g[MAX_ROWS_PER_GROUP];
        for (int32_t i = 0; i < m; i++) { g[i] = eval_row<T>(grp, xu_k, (uint32_t)i); }
        // interval LIN_U rows (pyramid facets): per-row scalars
        // through the identical mechanism math, dense fold
        T grs[MAX_ROWS_PER_GROUP], hs[MAX_ROWS_PER_GROUP];
        for (int32_t i = 0; i < m; i++) {
                if (grp.mech == MECH_ADMM) {
                        grs[i] = static_cast<T>(0);
                        hs[i] = grp.mu * admm_rho_scale;   // masked-off rows keep the proximal fold
                } else if (!row_on<T>(grp, knot, i)) {
                        grs[i] = static_cast<T>(0);
                        hs[i] = static_cast<T>(0);
                } else if (grp.mech == MECH_AL) {
                        const uint32_t idx = row_state_index(gi, (uint32_t)knot, (uint32_t)i);
                        glass::al_interval_grad_hess<T>(g[i], grp.lo[i], grp.hi[i], d_lam_hi[idx], d_lam_lo[idx], grp.mu, grp.sigma, grs[i], hs[i]);
                } else {
                        grs[i] = glass::relaxed_barrier_interval_grad<T>(g[i], grp.lo[i], grp.hi[i], grp.mu, grp.delta);
                        hs[i] = glass::relaxed_barrier_interval_hess<T>(g[i], grp.lo[i], grp.hi[i], grp.mu, grp.delta);
                }
        }
        for (int32_t a = rank; a < NU; a += size) {
                T acc = static_cast<T>(0);
                for (int32_t i = 0; i < m; i++) { acc += grs[i] * grp.Cmat[i * NU + a]; }
                s_r[a] += acc;
        }
        for (int32_t e = rank; e < NU * NU; e += size) {
                const int32_t a = e / NU, b = e % NU;
                T acc = static_cast<T>(0);
                for (int32_t i = 0; i < m; i++) { acc += hs[i] * grp.Cmat[i * NU + a] * grp.Cmat[i * NU + b]; }
                s_R[a * NU + b] += acc;
        }
}

// d_lam_hi/d_lam_lo: this SOLVE's AL dual base pointers (row_state_index
// layout; only dereferenced for MECH_AL groups — nullptr is fine without them)
template<typename T>
__device__ void apply_row_grad_hess(const RowGroupDesc<T>* __restrict__ groups,
                                    int32_t n_groups, int32_t knot, const T* xu_k,
                                    const T* __restrict__ d_lam_hi, const T* __restrict__ d_lam_lo,
                                    T* s_Q, T* s_q, T* s_R, T* s_r, bool has_control,
                                    T admm_rho_scale = static_cast<T>(1))
{
        const uint32_t rank = threadIdx.x;
        const uint32_t size = blockDim.x;
        for (int32_t gi = 0; gi < n_groups; gi++) {
                const RowGroupDesc<T>& grp = groups[gi];
                if (grp.mech != MECH_BARRIER_RELAXED && grp.mech != MECH_ADMM && grp.mech != MECH_AL) continue;
                if (grp.kind == LIN_U) {
                        // dense fold onto the U block: r += C^T grad_g, R += C^T H_g C.
                        // Row scalars/vectors are recomputed per thread (uniform, tiny:
                        // m <= MAX_ROWS_PER_GROUP, NU-dim rows) - no shared scratch;
                        // strided writes own disjoint R/r entries. Bodies live in the
                        // __noinline__ fold_lin_u_* helpers above (cicc build-time cliff).
                        // MECH_ADMM's fold is gradient-free, so below knot_lo it extends
                        // as a pure proximal term - same f32 strip-homogeneity requirement
                        // as the selection-row admm_prox (R1 y-windup lesson).
                        const bool lin_admm_prox = grp.mech == MECH_ADMM && (int32_t)knot < grp.knot_lo;
                        if (((int32_t)knot < grp.knot_lo && !lin_admm_prox) || (int32_t)knot >= grp.knot_hi) continue;
                        if (!has_control) continue;  // audit rule: LIN_U is pure-U
                        // BARRIER: the dense e-strided writes in the helpers assign s_R
                        // entry (i,i) to thread (i*NU+i) % size, but a selection U-group's
                        // diagonal fold assigned it to thread i % size - without a
                        // barrier between group iterations that is a cross-thread
                        // write-write race (all guards above are block-uniform, so
                        // the barrier is uniformly reached).
                        __syncthreads();
                        // cone vectors are gated per knot (bit 0); ADMM keeps its proximal fold
                        const bool cone_off = grp.cone && !knot_on<T>(grp, (int32_t)knot);
                        if (grp.cone && grp.mech == MECH_AL) {
                                if (!cone_off) fold_lin_u_conic_al<T>(grp, gi, (int32_t)knot, xu_k, d_lam_hi, s_R, s_r, rank, size);
                        } else if (grp.cone && grp.mech == MECH_BARRIER_RELAXED) {
                                if (!cone_off) fold_lin_u_rb_cone<T>(grp, xu_k, s_R, s_r, rank, size);
                        } else if (grp.cone && grp.mech == MECH_ADMM) {
                                fold_lin_u_admm_cone<T>(grp, s_R, rank, size, admm_rho_scale);
                        } else {
                                fold_lin_u_interval<T>(grp, gi, (int32_t)knot, xu_k, d_lam_hi, d_lam_lo, s_R, s_r, rank, size, admm_rho_scale);
                        }
                        __syncthreads();  // later groups may re-target these slots (see above)
                        continue;
                }
                if (!is_selection_kind(grp.kind)) continue;  // cooperative kinds: cooperative_row_grad_hess
                // MECH_ADMM's fold is gradient-free (gr = 0, h = rho), so extending
                // it BELOW knot_lo is a pure proximal term (rho/2)|dz_rows|^2 on the
                // dz-QP — unbiased, no z/y row state. Required for the f32 factor:
                // without it the Schur strip is rho-heterogeneous at the excluded
                // knots and the bdsv factor error feeds the y-integrator (measured:
                // exponential y windup, x2.2/inner-iter, once the fold at knot 0
                // was correctly dropped from the ROW semantics).
                const bool admm_prox = grp.mech == MECH_ADMM && knot < grp.knot_lo;
                if ((knot < grp.knot_lo && !admm_prox) || knot >= grp.knot_hi) continue;
                if (grp.block == BLOCK_U && !has_control) continue;
                for (int32_t i = rank; i < grp.n_rows; i += size) {
                        T gr, h;
                        if (grp.mech == MECH_ADMM) {
                                // constant rho*G^T G diagonal fold — the gradient half is
                                // per-ADMM-iteration (kernels/admm.cuh), NOT here; kept for
                                // masked-off rows (proximal treatment, like knots below knot_lo)
                                gr = static_cast<T>(0);
                                h = grp.mu * admm_rho_scale;  // mu = ADMM rho (x per-solve adaptation scale)
                        } else if (!row_on<T>(grp, knot, i)) {
                                continue;
                        } else if (grp.mech == MECH_AL) {
                                const T g = eval_row<T>(grp, xu_k, (uint32_t)i);
                                const uint32_t idx = row_state_index(gi, (uint32_t)knot, (uint32_t)i);
                                glass::al_interval_grad_hess<T>(g, grp.lo[i], grp.hi[i], d_lam_hi[idx], d_lam_lo[idx], grp.mu, grp.sigma, gr, h);
                        } else {
                                const T g = eval_row<T>(grp, xu_k, (uint32_t)i);
                                gr = glass::relaxed_barrier_interval_grad<T>(g, grp.lo[i], grp.hi[i], grp.mu, grp.delta);
                                h = glass::relaxed_barrier_interval_hess<T>(g, grp.lo[i], grp.hi[i], grp.mu, grp.delta);
                        }
                        if (grp.block == BLOCK_X) {
                                const int32_t xi = x_index_of_row<T>(grp, i);
                                s_q[xi] += gr;
                                s_Q[xi * constants::STATE_SIZE + xi] += h;  // diagonal: layout-agnostic
                        } else {
                                s_r[i] += gr;
                                s_R[i * constants::CONTROL_SIZE + i] += h;
                        }
                }
        }
}

// scalar mechanism cost of one knot (merit seam): RB barrier value or AL
// value (must mirror apply_row_grad_hess or the line search accepts against a
// different objective; MECH_ADMM contributes only under set_admm_merit — the
// AL-form (z, y) term below). Every thread computes the same serial sum (a few dozen evals)
// — uniform, deterministic, thread-invariant.
template<typename T>
__device__ __noinline__ T row_cost_value(const RowGroupDesc<T>* __restrict__ groups,
                            int32_t n_groups, int32_t knot, const T* xu_k,
                            const T* __restrict__ d_lam_hi, const T* __restrict__ d_lam_lo,
                            bool has_control,
                            const T* __restrict__ d_z_admm = nullptr,
                            const T* __restrict__ d_y_admm = nullptr,
                            T admm_rho_scale = static_cast<T>(1))
{
        T total = static_cast<T>(0);
        for (int32_t gi = 0; gi < n_groups; gi++) {
                const RowGroupDesc<T>& grp = groups[gi];
                if (!is_selection_kind(grp.kind) && grp.kind != LIN_U) continue;  // cooperative kinds: cooperative_row_cost_value
                const bool admm_term = grp.mech == MECH_ADMM && d_z_admm != nullptr;
                if (grp.mech != MECH_BARRIER_RELAXED && grp.mech != MECH_AL && !admm_term) continue;
                if (knot < grp.knot_lo || knot >= grp.knot_hi) continue;
                if (grp.block == BLOCK_U && !has_control) continue;
                if (grp.cone && !knot_on<T>(grp, knot)) continue;
                if (grp.kind == LIN_U && grp.cone && !admm_term) {
                        // vector value terms (the admm merit term below is per-row
                        // summable and needs no special case)
                        const int32_t m = grp.n_rows;
                        T g[MAX_ROWS_PER_GROUP];
                        for (int32_t i = 0; i < m; i++) { g[i] = eval_row<T>(grp, xu_k, (uint32_t)i); }
                        if (grp.mech == MECH_AL) {
                                T lam[MAX_ROWS_PER_GROUP];
                                for (int32_t i = 0; i < m; i++) { lam[i] = d_lam_hi[row_state_index(gi, (uint32_t)knot, (uint32_t)i)]; }
                                total += glass::al_soc_value<T>(g, lam, grp.mu, m);
                        } else {  // MECH_BARRIER_RELAXED: margin barrier
                                total += glass::relaxed_barrier_value<T>(g[0] - glass::soc_tail_norm<T>(g, m), grp.mu, grp.delta);
                        }
                        continue;
                }
                for (int32_t i = 0; i < grp.n_rows; i++) {
                        if (!row_on<T>(grp, knot, i)) continue;
                        const T g = eval_row<T>(grp, xu_k, (uint32_t)i);
                        if (admm_term) {
                                // AL-form value on the CURRENT (z, y) row state — the
                                // set_admm_merit ablation (R1): lets the line search see
                                // the feasibility progress the ADMM-modified QP encodes
                                const uint32_t idx = row_state_index(gi, (uint32_t)knot, (uint32_t)i);
                                const T r = g - d_z_admm[idx];
                                total += d_y_admm[idx] * r + static_cast<T>(0.5) * grp.mu * admm_rho_scale * r * r;
                        } else if (grp.mech == MECH_AL) {
                                const uint32_t idx = row_state_index(gi, (uint32_t)knot, (uint32_t)i);
                                total += glass::al_interval_value<T>(g, grp.lo[i], grp.hi[i], d_lam_hi[idx], d_lam_lo[idx], grp.mu, grp.sigma);
                        } else {
                                total += glass::relaxed_barrier_interval_value<T>(g, grp.lo[i], grp.hi[i], grp.mu, grp.delta);
                        }
                }
        }
        return total;
}

// ---- telemetry kernel --------------------------------------------------
//
// One block per solve. Per group: every thread strides over (knot, row) pairs
// writing violations into shared scratch, then rank 0 reduces max + sum in a
// FIXED serial order — deterministic and thread-count invariant by
// construction (violation sums may feed acceptance thresholds later; the
// atomicAdd+threshold pattern is a known irreproducibility hazard).
//
// Output layout: d_telemetry[solve * (2 * MAX_ROW_GROUPS) + 2 * grp + {0,1}]
// = {max, sum} true violation over the group's active rows.

constexpr uint32_t ROWGROUP_THREADS = 128;

// COLLISION groups have n_rows = plant::NCC (> MAX_ROWS_PER_GROUP), so the
// telemetry / dual-update scratch carves size for the max unconditionally
// (these are tiny once-per-solve kernels; a few KB of smem is not a
// bottleneck and it keeps the sizers flag-free).
constexpr uint32_t TELEMETRY_MAX_ROWS = ct_max((uint32_t)gato::plant::NCC, MAX_ROWS_PER_GROUP);

template<typename T>
__global__ __launch_bounds__(ROWGROUP_THREADS) void row_group_telemetry_batched_kernel(T* __restrict__                      d_telemetry,
                                                                                   const RowGroupDesc<T>* __restrict__ d_groups,
                                                                                   int32_t                              n_groups,
                                                                                   const T* __restrict__                d_xu_traj_batch,
                                                                                   const grid::robotModel<T>* __restrict__ d_robot_model,
                                                                                   const grid_collision::Environment<T> env)
{
        const uint32_t solve_idx = blockIdx.x;
        const uint32_t rank = threadIdx.x;
        const uint32_t size = blockDim.x;

        extern __shared__ char s_raw[];
        T* s_viol = reinterpret_cast<T*>(s_raw);                    // KNOT_POINTS * TELEMETRY_MAX_ROWS
        T* s_scratch = s_viol + KNOT_POINTS * TELEMETRY_MAX_ROWS;     // rowgroup_eval_scratch_ct

        const T* d_xu = d_xu_traj_batch + (size_t)solve_idx * constants::XU_TRAJ_SIZE;

        for (int32_t grp_idx = 0; grp_idx < n_groups; grp_idx++) {
                const RowGroupDesc<T>& grp = d_groups[grp_idx];
                const int32_t n_knots = grp.knot_hi - grp.knot_lo;
                const int32_t n_elems = n_knots * grp.n_rows;

                if (is_cooperative_kind(grp.kind)) {
                        // cooperative evaluator per active knot (all threads), then the
                        // per-row TRUE violations (COLLISION: vs the uniform margin,
                        // gated per knot — row_on reads bit 0 for it)
                        dispatch_cooperative_kind(grp.kind, [&](auto K) {
                                using E = CooperativeRows<T, decltype(K)::value>;
                                for (int32_t k = 0; k < n_knots; k++) {
                                        const int32_t knot = grp.knot_lo + k;
                                        const T* g = E::value(grp, knot, d_xu + (size_t)knot * constants::XU_KNOT_STRIDE, s_scratch, d_robot_model, &env);
                                        for (int32_t i = rank; i < grp.n_rows; i += size) {
                                                s_viol[k * grp.n_rows + i] = row_on<T>(grp, knot, i) ? glass::interval_violation<T>(g[i], grp.lo[E::bound(i)], grp.hi[E::bound(i)]) : static_cast<T>(0);
                                        }
                                        __syncthreads();
                                }
                        });
                } else if (grp.kind == LIN_U && grp.cone) {
                        // one margin violation per knot (slot i == 0; others 0)
                        for (int32_t e = rank; e < n_elems; e += size) {
                                const int32_t knot = grp.knot_lo + e / grp.n_rows;
                                const int32_t i = e % grp.n_rows;
                                if (i != 0 || !knot_on<T>(grp, knot)) {
                                        s_viol[e] = static_cast<T>(0);
                                        continue;
                                }
                                const T* xu_k = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                                T g[MAX_ROWS_PER_GROUP];
                                for (int32_t j = 0; j < grp.n_rows; j++) { g[j] = eval_row<T>(grp, xu_k, (uint32_t)j); }
                                s_viol[e] = glass::soc_violation<T>(g, grp.n_rows);
                        }
                } else {
                        for (int32_t e = rank; e < n_elems; e += size) {
                                const int32_t knot = grp.knot_lo + e / grp.n_rows;
                                const int32_t i = e % grp.n_rows;
                                const T* xu_k = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                                const T g = eval_row<T>(grp, xu_k, (uint32_t)i);
                                s_viol[e] = row_on<T>(grp, knot, i) ? glass::interval_violation<T>(g, grp.lo[i], grp.hi[i]) : static_cast<T>(0);
                        }
                }
                __syncthreads();

                if (rank == 0) {
                        T vmax = static_cast<T>(0), vsum = static_cast<T>(0);
                        for (int32_t e = 0; e < n_elems; e++) {  // fixed order: deterministic
                                if (s_viol[e] > vmax) vmax = s_viol[e];
                                vsum += s_viol[e];
                        }
                        d_telemetry[(size_t)solve_idx * 2 * MAX_ROW_GROUPS + 2 * grp_idx + 0] = vmax;
                        d_telemetry[(size_t)solve_idx * 2 * MAX_ROW_GROUPS + 2 * grp_idx + 1] = vsum;
                }
                __syncthreads();
        }
}

template<typename T>
__host__ size_t get_row_group_telemetry_smem_size()
{
        return sizeof(T) * (KNOT_POINTS * TELEMETRY_MAX_ROWS + rowgroup_eval_scratch_ct<T>());
}

template<typename T>
__host__ void row_group_telemetry_batched(uint32_t batch_size, T* d_telemetry, const RowGroupDesc<T>* d_groups, int32_t n_groups, const T* d_xu_traj_batch, const void* d_GRiD_mem,
                                       const grid_collision::Environment<T>& env = grid_collision::Environment<T>{})
{
        if (n_groups <= 0) return;
        row_group_telemetry_batched_kernel<T><<<batch_size, ROWGROUP_THREADS, get_row_group_telemetry_smem_size<T>()>>>(d_telemetry, d_groups, n_groups, d_xu_traj_batch,
                                                                                                               (const grid::robotModel<T>*)d_GRiD_mem, env);
        gpuErrchk(cudaGetLastError());  // launch-config failures must not pass silently
}

// ---- AL outer dual update (MECH_AL) --------------------------------------
//
// One block per solve, launched ONCE PER SOLVE on the final trajectory (the
// solve is the inner minimization; per-SQP-iteration updates diverge — a
// damped or rejected step is not a converged inner solve): per active row,
//   lam_hi <- max(0, lam_hi + rho*(g - hi)),  lam_lo <- max(0, lam_lo + rho*(lo - g))
// (equality rows: lam_hi += rho*(g - hi), unclamped). Each (group, knot, row)
// slot is owned by exactly one thread — no barriers between row updates,
// deterministic.
//
// TRUE-VIOLATION ACCEPTANCE (the PDDP-settled PHR safeguard): duals update
// only when this solve's max true violation over the AL groups (read from
// the telemetry buffer — launch AFTER the telemetry kernel) is feasible or
// STRICTLY improved on the best accepted so far. A stalled primal (line
// search rejecting every step at this rho) therefore freezes lambda at its
// last accepted value instead of accumulating rho*viol every solve until an
// overshooting step lands (measured drift: viol 0.069 plateau -> 0.57).

constexpr float AL_ACCEPT_FACTOR = 0.99f;  // required relative improvement
constexpr float AL_FEAS_TOL = 1e-5f;       // feasible -> always accept

// PHR update of one row's (lam_hi, lam_lo) slot from its value g and bound slot
// bi; a masked-off row resets both duals (a foot entering swing starts its
// next stance fresh). Soft (sigma > 0): elastic multiplier bound |lam| <= sigma.
template<typename T>
__device__ __forceinline__ void al_row_dual_update(const RowGroupDesc<T>& grp, int32_t bi, uint32_t idx, T g, bool on,
                                                   T* __restrict__ d_lam_hi, T* __restrict__ d_lam_lo)
{
        if (!on) {
                d_lam_hi[idx] = static_cast<T>(0);
                d_lam_lo[idx] = static_cast<T>(0);
                return;
        }
        const bool soft = grp.sigma > static_cast<T>(0);
        if (glass::al_is_eq_row<T>(grp.lo[bi], grp.hi[bi])) {
                T a = d_lam_hi[idx] + grp.mu * (g - grp.hi[bi]);
                if (soft) {
                        if (a > grp.sigma) a = grp.sigma;
                        if (a < -grp.sigma) a = -grp.sigma;
                }
                d_lam_hi[idx] = a;
                return;
        }
        if (isfinite(grp.hi[bi])) {
                T a = d_lam_hi[idx] + grp.mu * (g - grp.hi[bi]);
                if (a < static_cast<T>(0)) a = static_cast<T>(0);
                if (soft && a > grp.sigma) a = grp.sigma;
                d_lam_hi[idx] = a;
        }
        if (isfinite(grp.lo[bi])) {
                T a = d_lam_lo[idx] + grp.mu * (grp.lo[bi] - g);
                if (a < static_cast<T>(0)) a = static_cast<T>(0);
                if (soft && a > grp.sigma) a = grp.sigma;
                d_lam_lo[idx] = a;
        }
}

template<typename T>
__global__ __launch_bounds__(ROWGROUP_THREADS) void al_dual_update_batched_kernel(T* __restrict__ d_lam_hi_batch,
                                                                              T* __restrict__ d_lam_lo_batch,
                                                                              T* __restrict__ d_prev_viol_batch,
                                                                              const T* __restrict__ d_telemetry,
                                                                              const T* __restrict__ d_xu_traj_batch,
                                                                              const RowGroupDesc<T>* __restrict__ d_groups,
                                                                              int32_t n_groups,
                                                                              const grid::robotModel<T>* __restrict__ d_robot_model,
                                                                              const grid_collision::Environment<T> env)
{
        const uint32_t solve_idx = blockIdx.x;
        const uint32_t rank = threadIdx.x;
        const uint32_t size = blockDim.x;

        extern __shared__ char s_raw[];
        T* s_scratch = reinterpret_cast<T*>(s_raw);  // rowgroup_eval_scratch_ct

        __shared__ int32_t s_accept;
        if (rank == 0) {
                T viol = static_cast<T>(0);
                for (int32_t gi = 0; gi < n_groups; gi++) {
                        if (d_groups[gi].mech != MECH_AL) continue;
                        const T v = d_telemetry[(size_t)solve_idx * 2 * MAX_ROW_GROUPS + 2 * gi];
                        if (v > viol) viol = v;
                }
                const T prev = d_prev_viol_batch[solve_idx];
                s_accept = (viol < static_cast<T>(AL_FEAS_TOL) || viol < static_cast<T>(AL_ACCEPT_FACTOR) * prev) ? 1 : 0;
                if (s_accept) d_prev_viol_batch[solve_idx] = viol;
        }
        __syncthreads();
        if (!s_accept) return;

        T*       d_lam_hi = d_lam_hi_batch + (size_t)solve_idx * TOTAL_ROW_STATE_SIZE;
        T*       d_lam_lo = d_lam_lo_batch + (size_t)solve_idx * TOTAL_ROW_STATE_SIZE;
        const T* d_xu = d_xu_traj_batch + (size_t)solve_idx * constants::XU_TRAJ_SIZE;

        for (int32_t gi = 0; gi < n_groups; gi++) {
                const RowGroupDesc<T>& grp = d_groups[gi];
                if (grp.mech != MECH_AL) continue;
                const int32_t n_knots = grp.knot_hi - grp.knot_lo;
                if (is_cooperative_kind(grp.kind)) {
                        // cooperative evaluator per knot (all threads), one owner
                        // thread per row (COLLISION: lo = margin, hi = +inf, so only
                        // lam_lo accumulates against the TRUE min clearance; band-indexed)
                        dispatch_cooperative_kind(grp.kind, [&](auto K) {
                                using E = CooperativeRows<T, decltype(K)::value>;
                                for (int32_t k = 0; k < n_knots; k++) {
                                        const int32_t knot = grp.knot_lo + k;
                                        const T* g = E::value(grp, knot, d_xu + (size_t)knot * constants::XU_KNOT_STRIDE, s_scratch, d_robot_model, &env);
                                        for (int32_t i = rank; i < grp.n_rows; i += size) {
                                                al_row_dual_update<T>(grp, E::bound(i), E::state(gi, knot, i), g[i], row_on<T>(grp, knot, i), d_lam_hi, d_lam_lo);
                                        }
                                        __syncthreads();  // s_scratch reused next knot
                                }
                        });
                        continue;
                }
                if (grp.kind == LIN_U && grp.cone) {
                        // conic dual update lam <- Π_K(lam - rho*g): the row vector is
                        // coupled, so each KNOT is owned by one thread (deterministic)
                        for (int32_t k = rank; k < n_knots; k += size) {
                                const int32_t knot = grp.knot_lo + k;
                                const T* xu_k = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                                T w[MAX_ROWS_PER_GROUP];
                                if (!knot_on<T>(grp, knot)) {   // masked-off knot: dual reset
                                        for (int32_t i = 0; i < grp.n_rows; i++) { d_lam_hi[row_state_index(gi, (uint32_t)knot, (uint32_t)i)] = static_cast<T>(0); }
                                        continue;
                                }
                                for (int32_t i = 0; i < grp.n_rows; i++) {
                                        const T g = eval_row<T>(grp, xu_k, (uint32_t)i);
                                        w[i] = d_lam_hi[row_state_index(gi, (uint32_t)knot, (uint32_t)i)] - grp.mu * g;
                                }
                                glass::thread::soc_project<T>(w, w, grp.n_rows);
                                for (int32_t i = 0; i < grp.n_rows; i++) { d_lam_hi[row_state_index(gi, (uint32_t)knot, (uint32_t)i)] = w[i]; }
                        }
                        continue;
                }
                // selection / interval LIN_U rows: per-thread evaluable, no scratch
                for (int32_t k = 0; k < n_knots; k++) {
                        const int32_t knot = grp.knot_lo + k;
                        const T* xu_k = d_xu + (size_t)knot * constants::XU_KNOT_STRIDE;
                        for (int32_t i = rank; i < grp.n_rows; i += size) {
                                al_row_dual_update<T>(grp, i, row_state_index(gi, (uint32_t)knot, (uint32_t)i), eval_row<T>(grp, xu_k, (uint32_t)i), row_on<T>(grp, knot, i), d_lam_hi, d_lam_lo);
                        }
                }
        }
}

template<typename T>
__host__ void al_dual_update_batched(uint32_t batch_size, T* d_lam_hi_batch, T* d_lam_lo_batch, T* d_prev_viol_batch, const T* d_telemetry, const T* d_xu_traj_batch,
                                  const RowGroupDesc<T>* d_groups, int32_t n_groups, const void* d_GRiD_mem,
                                  const grid_collision::Environment<T>& env = grid_collision::Environment<T>{})
{
        al_dual_update_batched_kernel<T><<<batch_size, ROWGROUP_THREADS, sizeof(T) * rowgroup_eval_scratch_ct<T>()>>>(d_lam_hi_batch, d_lam_lo_batch, d_prev_viol_batch, d_telemetry, d_xu_traj_batch, d_groups,
                                                                                                                  n_groups, (const grid::robotModel<T>*)d_GRiD_mem, env);
        gpuErrchk(cudaGetLastError());  // launch-config failures must not pass silently
}

// ---- limit row-group initialization ------------------------------------
//
// The vendored {JOINT,VEL,CTRL}_LIMITS tables are __device__ constexpr, so the
// canonical limit groups are built ON DEVICE (single block; rank 0 writes the
// scalar fields, all ranks stride the bound arrays). BOX_U's knot mask stops
// at KNOT_POINTS-1 (the terminal knot has no control). ALL three boxes are
// ACTUATED-ONLY (n_rows = ACTUATED_SIZE, matching the NU-row tables): the
// floating base dofs have no URDF <limit> tags; on contact-force builds
// (CONTROL_SIZE > ACTUATED_SIZE) the fc slots likewise have no table row.
// Fixed base: ACTUATED_SIZE == NQ, identical to the historic install.

template<typename T>
__global__ void init_limit_row_groups_kernel(RowGroupDesc<T>* d_groups, int32_t mech, T mu, T delta)
{
        const uint32_t rank = threadIdx.x;
        const uint32_t size = blockDim.x;
        constexpr int32_t NA = constants::ACTUATED_SIZE;

        if (rank == 0) {
                // State boxes start at knot 1: x_0 is DATA (pinned to the
                // measurement by the initial-state constraint), so knot-0
                // state rows are unsatisfiable whenever the measured state
                // violates a limit — AL multipliers wind up (or the
                // acceptance gate freezes them) on rows no step can fix and
                // closed-loop MPC destabilizes (R1 measured: indy7 reach
                // cascade). Same class as the ADMM equality-row reinit.
                d_groups[0].kind = BOX_Q;
                d_groups[0].block = BLOCK_X;
                d_groups[0].n_rows = NA;
                d_groups[0].knot_lo = 1;
                d_groups[0].knot_hi = KNOT_POINTS;

                d_groups[1].kind = BOX_QD;
                d_groups[1].block = BLOCK_X;
                d_groups[1].n_rows = NA;
                d_groups[1].knot_lo = 1;
                d_groups[1].knot_hi = KNOT_POINTS;

                d_groups[2].kind = BOX_U;
                d_groups[2].block = BLOCK_U;
                d_groups[2].n_rows = NA;
                d_groups[2].knot_lo = 0;
                d_groups[2].knot_hi = KNOT_POINTS - 1;

                for (int g = 0; g < 3; g++) {
                        d_groups[g].mech = mech;
                        d_groups[g].mu = mu;
                        d_groups[g].delta = delta;
                        d_groups[g].sigma = static_cast<T>(0);  // hard by default
                        d_groups[g].cone = 0;
                }
        }
        for (uint32_t e = rank; e < 3 * KNOT_POINTS; e += size) { d_groups[e / KNOT_POINTS].active[e % KNOT_POINTS] = ~0ull; }
        for (int32_t i = rank; i < NA; i += size) {
                d_groups[0].lo[i] = gato::plant::JOINT_LIMITS<T>()[i][0];
                d_groups[0].hi[i] = gato::plant::JOINT_LIMITS<T>()[i][1];
                d_groups[1].lo[i] = gato::plant::VEL_LIMITS<T>()[i][0];
                d_groups[1].hi[i] = gato::plant::VEL_LIMITS<T>()[i][1];
                d_groups[2].lo[i] = gato::plant::CTRL_LIMITS<T>()[i][0];
                d_groups[2].hi[i] = gato::plant::CTRL_LIMITS<T>()[i][1];
        }
}

}  // namespace rows
}  // namespace gato
