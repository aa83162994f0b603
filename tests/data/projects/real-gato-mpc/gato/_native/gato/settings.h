#pragma once
// Compile-time solver settings: precision (T), line-search alphas, rho bounds,
// per-kernel thread counts, and the plant header include (GATO_PLANT_HEADER —
// the robot-specific generated grid.cuh + limits.cuh + the generic adapter).

#include <cstdint>

namespace sqp {

#ifdef USE_DOUBLES
typedef double T;
#else
typedef float T;
#endif

// -——————————————————compile time settings——————————————————

constexpr uint32_t NUM_ALPHAS = 8;

constexpr float RHO_INIT = 1e-3;
constexpr float RHO_FACTOR = 1.2;
constexpr float RHO_MIN = 1e-8;
constexpr float RHO_MAX = 10;
constexpr float NON_PD_RHO_FACTOR = 100;  // trust-region rho growth on a non-PD direct factor (kernels/line_search.cuh): 1e-3 -> 0.1 in one step, the measured floor that keeps the row-stiffened Schur factor PD in f32

// -D override kept for the thread-invariance gate (same convention as
// GATO_BDSV_THREADS below); production value 128.
#ifndef GATO_KKT_THREADS
    #define GATO_KKT_THREADS 128
#endif
constexpr uint32_t KKT_THREADS = GATO_KKT_THREADS;
constexpr uint32_t SCHUR_THREADS = 128;
constexpr uint32_t PCG_THREADS = 1024;
// direct-solve kernel thread count (serial knot chain over 14x14 blocks).
// Tuned on sm_120 / CUDA 13.2: 512 fastest at every (N, B) swept — N32 297µs,
// N64 631-641µs, batch-invariant; 256 was 3-7% slower, 128 clearly worse
// (examples/benchmarks/data/bdsv_timing).
// -D override kept for the thread-invariance gate + retuning on new arches.
#ifndef GATO_BDSV_THREADS
    #define GATO_BDSV_THREADS 512
#endif
constexpr uint32_t BDSV_THREADS = GATO_BDSV_THREADS;
constexpr uint32_t DZ_THREADS = 128;

// Exact-Hessian (SO-SQP) build flag: 0 (default) compiles the path OUT, so the
// device tree is preprocessor-identical to the GN-only solver (bitwise parity
// gate holds by construction). Build with cmake -DGATO_EXACT_HESSIAN=ON
// (-DUSE_EXACT_HESSIAN=1) and enable per solver via set_exact_hessian(true):
// per-TASK toggle — the projection wins on EE-terminal tasks, is neutral-to-
// worse on full-rank joint-terminal ones (numpy prototype study).
#ifndef USE_EXACT_HESSIAN
    #define USE_EXACT_HESSIAN 0
#endif

// CL-3a contact-force flag: 0 (default) keeps CONTROL_SIZE = actuated torques and
// the device tree preprocessor-identical to the baseline solver (bitwise parity
// by construction). 1 appends a per-knot world-aligned contact WRENCH decision
// variable (6 per contact frame) to every control slot — f_c extends u; the KKT/
// Schur/merit/batch machinery sees one wider control and is structurally
// unchanged. Requires a grid.cuh generated with contact_frames. Built as the
// separate `_fc` module variant (cmake -DGATO_CONTACT_FORCES=ON or a MODULES
// entry `plant:N:fc`; a module-ABI change, so it is its own .so).
#ifndef GATO_CONTACT_FORCES
    #define GATO_CONTACT_FORCES 0
#endif
// Merit kernel block size. 0 (default) resolves to 64 threads (kernels/merit.cuh):
// measured 2026-10-22 on the RTX 5090 and on the 5090 throttled through MPS to
// 10 and 25 percent of its SMs, 64 threads cut the merit launch two to four
// times against the generated per-robot maximum at batch 8 and 16 on the three
// arms and go2, never slower by more than a few microseconds at batch 1
// (docs/merit_timing.md). The kernel is thread-count invariant and the partials
// are summed in fixed order, so the block size is bit-identical. Override through
// the GATO_MERIT_THREADS environment variable (register_robot / build /
// first-use compiles) or -DGATO_MERIT_THREADS=128 at configure time.
#ifndef GATO_MERIT_THREADS
    #define GATO_MERIT_THREADS 0
#endif
constexpr uint32_t LINE_SEARCH_THREADS = 512;
constexpr uint32_t SIM_FORWARD_THREADS = 128;

}  // namespace sqp

// ----- Plant Selection -----
// The plant adapter header is injected at compile time (CMake sets
// -DGATO_PLANT_HEADER="dynamics/plant.cuh" and puts gato/dynamics/<name>/ on
// the include path for grid.cuh + limits.cuh), so adding a robot needs no
// edits here.
#ifndef GATO_PLANT_HEADER
    #error "GATO_PLANT_HEADER must be defined (path to the plant adapter header)"
#endif
#include GATO_PLANT_HEADER
