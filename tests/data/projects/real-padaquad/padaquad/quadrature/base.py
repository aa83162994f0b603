"""
Parallel adaptive-stepsize integration solvers.

This module contains the core parallel integration engine. Unlike traditional
sequential integrators that must evaluate one step at a time (because each step
depends on the previous result), this solver evaluates many integration steps
simultaneously in a batch. This is possible because the integrand f(x) depends
only on x, not on accumulated state -- each step's contribution to the integral
is independent and can be computed in parallel.

The integration domain [mesh_init, mesh_final] is divided by "barriers" into steps.
Within each step, C quadrature points are placed (per the RK tableau). The
solver adaptively refines this mesh: steps with too much error are split into
smaller steps; consecutive steps with very little error are merged.

Key concepts:

- **mesh**: Boundary points dividing [mesh_init, mesh_final] into steps.
  Shape: [M, T] where M is the number of barriers. Step i spans from
  barrier[i] to barrier[i+1].

- **mesh_trackers**: Boolean array of length M. True means the step starting
  at that barrier still needs to be evaluated (or re-evaluated after splitting).

- **Batching**: When there are more steps than fit in GPU memory, the solver
  processes them in batches. Batch size is determined dynamically by measuring
  the memory footprint of the integrand function (see ``memory.py``).

Class hierarchy (defined here):

- ``AdaptiveQuadrature``: Abstract base with the main integrate()
  loop, adaptive step management, and error computation. Memory management
  (the memory benchmark, the batch-size budget, out-of-memory recognition)
  comes from the ``_MemoryManagement`` mixin in ``memory.py``.

- ``_UniformAdaptiveQuadratureBase``: Concrete subclass for methods with
  fixed tableau c values (quadrature points at constant fractional positions).

- ``_VariableAdaptiveQuadratureBase``: Concrete subclass for methods
  where quadrature points can be at arbitrary positions within each step.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from abc import abstractmethod
from typing import TYPE_CHECKING

import torch

from padaquad.base import SolverBase
from padaquad.distributed import _resolve_device
from padaquad.quadrature.memory import _is_out_of_memory, _MemoryManagement
from padaquad.results import IntegrationResult, MethodOutput

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from collections.abc import Callable


class AdaptiveQuadrature(_MemoryManagement, SolverBase):
    """
    Base class for parallel adaptive-stepsize numerical integration.

    Implements the main integration loop that:
    1. Initializes a mesh of quadrature step barriers across the integration domain.
    2. Evaluates the integrand at quadrature points within each step (in batches).
    3. Computes integral contributions and error estimates per step using RK methods.
    4. Adaptively refines the mesh: splits high-error steps, merges low-error pairs.
    5. Repeats until all steps meet the error tolerance.
    6. Computes an optimal mesh for potential reuse.

    Subclasses must implement:
        - ``_compute_nodes(mesh_left, mesh_right)``: Place quadrature points within steps.
        - ``_evaluate_adaptive_nodes(...)``: Evaluate integrand at refined points.
        - ``_merge_excess_nodes(...)``: Merge consecutive low-error steps.
        - ``_calculate_integral(t, y, y0)``: Compute RK integral + error for a batch.

    Attributes:
        remove_cut: Largest predicted error ratio of a merged step pair in the
            optimal mesh (default 0.1).
        max_batch: Maximum number of integrand evaluations per batch. If None,
            determined dynamically from available memory.
        total_mem_usage: Fraction of total memory to use (0 < value <= 1).
        max_path_change: If set, stops integration when the failing fraction of
            the starting mesh's steps reaches this value (used with a given or
            stored starting mesh).
        use_absolute_error_ratio: If True, uses the total integral for error
            normalization. If False, uses cumulative integral up to each step.
        error_norm: Vector-error reduction / acceptance scheme (one of "2",
            "max", "rms", "failure_fraction", or a callable). See __init__.
        mesh_failure_tolerance: Fraction of output elements allowed to fail when
            error_norm == "failure_fraction".
        method: The RK method object (set by subclass).
        order: Convergence order of the RK method (set by subclass).
        C: Number of quadrature points per integration step (set by subclass).
        Cm1: C - 1, used frequently in index calculations (set by subclass).
    """

    def __init__(
        self,
        remove_cut: float = 0.1,
        max_batch: int | None = None,
        total_mem_usage: float = 0.9,
        max_path_change: float | None = None,
        max_adaptive_splits: int | None = None,
        use_absolute_error_ratio: bool = True,
        error_norm: str | Callable = "2",
        mesh_failure_tolerance: float = 0.0,
        error_on_nonfinite: bool = True,
        *args,
        **kwargs,
    ) -> None:
        """
        Initialize the parallel adaptive solver.

        Args:
            remove_cut: Largest predicted error ratio of a merged step pair when
                the optimal mesh is built. A pair is merged only if the merged
                step's error ratio, predicted from the two steps' errors, is
                below this value (see ``_prune_excess_mesh``). Must be < 1.
                Lower values keep more steps (more conservative). Default: 0.1.
            max_batch: Maximum number of integrand evaluations per batch. If None,
                batch size is determined dynamically based on available memory.
            total_mem_usage: Fraction of total device memory the solver may use
                for batched evaluations (0 < value <= 1). Default: 0.9.
            max_path_change: If set, and the starting mesh is the caller's
                ``mesh`` or the stored mesh used by ``same_f=True`` (not
                a freshly generated one), integration stops early, returning
                ``converged=False``, once the steps of the starting mesh that
                fail the error tolerance reach this fraction of the starting
                mesh's step count. The count spans every batch; halves of split
                steps are not counted. Useful for iterative optimization.
            max_adaptive_splits: Maximum number of times a panel may be split
                during adaptive refinement. A panel that has been split this
                many times is accepted even if it still fails the error
                tolerance, instead of being split further. If None (default),
                refinement is uncapped. Can be overridden per call via
                ``integrate(max_adaptive_splits=...)``.
            use_absolute_error_ratio: If True, error ratios use the total
                (converging) integral value. If False, uses cumulative sum up
                to each step. Default: True.
            error_norm: Selects how a vector-valued (D > 1) per-step error is
                reduced to a single accept/reject decision. One of:

                  - ``"2"`` (default, matches ``scipy.integrate.quad_vec``):
                    L2 norm ``sqrt(sum(e**2))`` of the error vector, compared
                    against ``max(atol, rtol * L2(integral))``
                    (reduce-then-compare).
                  - ``"max"``: L-infinity norm ``max(|e|)`` (reduce-then-compare).
                  - ``"rms"``: root-mean-square ``sqrt(mean(e**2))``
                    (reduce-then-compare; padaquad's historical reduction).
                  - a callable ``norm(x)`` that reduces the last (D) axis of a
                    ``[..., D]`` tensor to ``[...]`` (reduce-then-compare).
                  - ``"failure_fraction"``: per-component control. Each output
                    element is compared against its own tolerance
                    ``atol + rtol * |integral_d|``; a panel is accepted when the
                    fraction of failing elements is ``<= mesh_failure_tolerance``.

                For D == 1 the norm family reduces to
                ``|e| / max(atol, rtol*|I|)`` and ``"failure_fraction"`` to
                ``|e| / (atol + rtol*|I|)``.
            mesh_failure_tolerance: Used only when ``error_norm ==
                "failure_fraction"``. Fraction in ``[0, 1]`` of output elements
                that may exceed tolerance while a panel is still accepted.
                Default 0.0 (every element must pass). Can be overridden per
                call via ``integrate(mesh_failure_tolerance=...)``.
            error_on_nonfinite: If True (default), raise a ValueError naming the
                offending ``t`` when the integrand returns NaN/Inf. If False,
                such panels are accepted and the non-finite value propagates
                into the result (the run never hangs in either case). Can be
                overridden per call via ``integrate(error_on_nonfinite=...)``.
            *args: Forwarded to SolverBase (and DistributedEnvironment).
            **kwargs: Forwarded to SolverBase (and DistributedEnvironment).
        """

        super().__init__(*args, **kwargs)
        assert remove_cut < 1.0
        assert max_adaptive_splits is None or max_adaptive_splits >= 0
        self.remove_cut = remove_cut

        # Memory handling variables
        # max_batch of the last integrate() call that returned (converged or
        # stopped early by max_path_change); reused by same_f=True.
        self.previous_max_batch: int | None = None
        # Per-evaluation memory cost; set by each _setup_memory_checks run and
        # used by get_max_batch to size batches from live free memory.
        self.f_unit_mem_size = None
        # Cap discovered after an OOM during a take_gradient=False evaluation;
        # None until one occurs. Cleared at the start of every integrate() call
        # (same_f=True carries it over through previous_max_batch).
        self._oom_max_batch = None

        # Construction-time defaults; each integrate() call falls back to these
        # when its corresponding argument is None.
        self.init_max_batch = max_batch
        self.max_path_change = max_path_change
        self.init_max_adaptive_splits = max_adaptive_splits
        self.use_absolute_error_ratio = use_absolute_error_ratio

        self.method = None
        self.order = None
        self.C = None
        self.Cm1 = None
        # Construction-time defaults; the active values live in self.error_norm
        # and self.mesh_failure_tolerance and are (re)set each integrate() call.
        self._check_error_norm(error_norm)
        self._check_mesh_failure_tolerance(mesh_failure_tolerance)
        self.init_error_norm = error_norm
        self.error_norm = error_norm
        self.init_mesh_failure_tolerance = mesh_failure_tolerance
        self.mesh_failure_tolerance = mesh_failure_tolerance
        # Construction-time default; the active value lives in
        # self.error_on_nonfinite and is (re)set each integrate() call.
        self.init_error_on_nonfinite = error_on_nonfinite
        self.error_on_nonfinite = error_on_nonfinite
        self.init_total_mem_usage = total_mem_usage

    #: String values accepted by ``error_norm`` (in addition to a callable).
    _VALID_ERROR_NORMS = ("2", "max", "rms", "failure_fraction")

    @classmethod
    def _check_error_norm(cls, error_norm) -> None:
        """Validate the ``error_norm`` selector (a known string or a callable)."""
        if callable(error_norm):
            return
        if error_norm not in cls._VALID_ERROR_NORMS:
            raise ValueError(
                f"error_norm must be a callable or one of "
                f"{cls._VALID_ERROR_NORMS}, got {error_norm!r}"
            )

    @staticmethod
    def _check_mesh_failure_tolerance(mesh_failure_tolerance) -> None:
        """Validate that ``mesh_failure_tolerance`` is a fraction in [0, 1]."""
        if not (0.0 <= mesh_failure_tolerance <= 1.0):
            raise ValueError(
                "mesh_failure_tolerance must be in [0, 1], got "
                f"{mesh_failure_tolerance!r}"
            )

    # -------------------------------------------------------------------------------- #
    #                                 ABSTRACT METHODS                                 #
    # -------------------------------------------------------------------------------- #

    @abstractmethod
    def _evaluate_adaptive_nodes(
        self,
        f: Callable,
        idxs_add: torch.Tensor,
        y: torch.Tensor,
        nodes: torch.Tensor,
        f_args: tuple = (),
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """
        Evaluate the integrand at new points created by splitting failed steps.

        When steps fail the error tolerance, they are split into two smaller
        steps. This method evaluates the integrand at the new quadrature points
        needed for the smaller steps. The implementation differs between uniform
        and variable solvers.

        Args:
            f: The integrand function.
            idxs_add: Indices of steps that need to be split. Shape: [n_add].
            y: Current integrand evaluations for all steps. Shape: [N, C, D].
            nodes: Current quadrature point positions for all steps.
                Shape: [N, C, T].
            f_args: Extra arguments passed to f.

        Returns:
            Tuple of (y_new, nodes_new): integrand evaluations and quadrature
            point positions for the replacement (split) steps.
        """

    @abstractmethod
    def _merge_excess_nodes(
        self, nodes, mesh_quadratures, mesh_quadrature_errors, remove_idxs
    ):
        """
        Merges neighboring quadrature steps or removes and one quadtrature steps
        and extends its neighbor to cover the same range.

        Args:
            nodes (Tensor): Per-step quadrature point positions.
            remove_idxs (Tensor): First index of neighboring steps needed to be
                merged, or remove at given index and extend the following step

        Shapes:
            nodes : [N, C, T]
            removed_idxs : [n]
        """

    # -------------------------------------------------------------------------------- #
    #                            PRIMARY INTEGRATION METHOD                            #
    # -------------------------------------------------------------------------------- #

    def integrate(
        self,
        f: Callable | None = None,
        y0: torch.Tensor | None = None,
        mesh: torch.Tensor | None = None,
        mesh_init: torch.Tensor | None = None,
        mesh_final: torch.Tensor | None = None,
        same_f: bool = False,
        random_initial_mesh: bool = True,
        N_init_steps: int = 13,
        f_args: tuple = (),
        take_gradient: bool = True,
        total_mem_usage: float | None = None,
        loss_fxn: Callable | None = None,
        max_batch: int | None = None,
        max_adaptive_splits: int | None = None,
        error_norm: str | Callable | None = None,
        error_integral_reference: float | torch.Tensor | None = None,
        mesh_failure_tolerance: float | None = None,
        error_on_nonfinite: bool | None = None,
        conserve_memory: bool = False,
        result_device: str | torch.device | None = "cpu",
    ) -> IntegrationResult:
        """
        Perform parallel adaptive numerical integration of f.

        This is the main integration loop. It divides [mesh_init, mesh_final] into
        steps using barrier points, evaluates the integrand in parallel batches,
        and adaptively refines the mesh until all steps meet the error tolerance.

        The algorithm:
        1. Initialize barriers (random mesh or user-provided).
        2. While unevaluated steps remain:
           a. Select a batch of steps that fits in memory.
           b. Place C quadrature points in each step.
           c. Evaluate the integrand at all points in parallel.
           d. Compute integral contributions and error estimates via RK.
           e. Accept steps with error_ratio < 1; split the rest.
           f. Record accepted results.
        3. Optimize the final mesh (prune over-resolved + refine under-resolved).
        4. Return the integral, error, and diagnostics.

        Args:
            f: The integrand f(t). Takes shape [N, T], returns [N, D].
                If None, uses the function from construction.
            y0: Initial integral accumulator value. Shape: [D].
            mesh: Optional initial step barriers. If provided, these are the
                starting mesh. If None, a random mesh is generated. Replaced by
                the stored mesh when ``same_f=True`` and one is stored.
                Shape: [N, T].
            mesh_init: Lower integration bound. Shape: [T].
            mesh_final: Upper integration bound. Shape: [T].
            N_init_steps: Approximate number of initial steps when mesh is None.
                The actual count is ~sqrt(N_init_steps) segments with
                ~sqrt(N_init_steps)+1 random sub-barriers each.
            f_args: Extra arguments passed to f.
            take_gradient: If True, calls loss.backward() after each batch
                to compute gradients through the integration.
            total_mem_usage: Fraction of memory to use for batching. Overrides
                the value from construction if provided.
            loss_fxn: Custom loss function. Takes an IntegrationResult, returns a
                scalar tensor. If None, uses the integral value itself.
            max_batch: Maximum evaluations per batch. Overrides dynamic memory
                calculation if provided. Replaced by the stored value when
                ``same_f=True`` and one is stored.
            max_adaptive_splits: Maximum number of times a panel may be split
                during adaptive refinement; a panel split this many times is
                accepted even if it still fails the tolerance. If None
                (default), falls back to the value from construction (also
                None ⇒ uncapped). When both are set, this per-call value takes
                priority.
            error_norm: Vector-error reduction / acceptance scheme (see
                __init__). If None (default), falls back to the value from
                construction. When set, this per-call value takes priority.
            error_integral_reference: Reference value for the relative-tolerance
                denominator in absolute error mode
                (``use_absolute_error_ratio=True``), where a panel's tolerance is
                ``max(atol, rtol * |reference|)`` (``atol + rtol * |reference|``
                for ``"failure_fraction"``). By default the reference is the
                *running* integral, which is incomplete during the early batches
                (it has not yet accumulated contributions from regions evaluated
                later). When much of the integral's mass lies at later times,
                that early denominator is too small and the controller
                over-refines early panels. Passing a value close to the true
                total integral here fixes the denominator from the first batch.
                Accepts a Python float or a tensor (coerced to the solver
                dtype/device). Has no effect in cumulative mode
                (``use_absolute_error_ratio=False``), which normalizes by the
                cumulative sum instead. If None (default), the running integral
                is used.
            mesh_failure_tolerance: Fraction of output elements allowed to fail
                when ``error_norm == "failure_fraction"`` (see __init__). If
                None (default), falls back to the value from construction. When
                set, this per-call value takes priority.
            error_on_nonfinite: If True, raise a ValueError naming the offending
                ``t`` when the integrand returns NaN/Inf; if False, accept those
                panels and let the non-finite value propagate into the result.
                If None (default), falls back to the value from construction
                (which defaults to True). When both are set, this per-call value
                takes priority.
            random_initial_mesh: When True (default), the fresh initial
                mesh is built with random sub-barrier offsets within each
                top-level segment. Randomness is essential here, not
                cosmetic: when the integrand has features at uniformly-
                spaced positions (e.g. zeros of ``sin(2*pi*k*t)``,
                polynomial extrema), an evenly-spaced mesh can align
                with those features in a way the adaptive controller
                cannot recover from. Random offsets break this
                alignment. Set to False only for debugging or for
                integrands you have separately verified to be safe
                against uniform-mesh aliasing; reproducibility is
                better achieved via ``torch.manual_seed`` before the
                call.
            same_f: Set True when f is the same integrand as in the
                previous call, or changes only slightly (e.g. between
                training-loop iterations). The solver then starts from the mesh
                and ``max_batch`` stored by the last call that returned on this
                solver (converged, or stopped early by ``max_path_change``),
                in place of the caller's ``mesh`` and ``max_batch``, and skips
                the memory benchmark. The integration bounds still come from
                the caller's arguments; the stored mesh is filtered and padded
                to them. If nothing is stored yet (first call), the caller's
                values or the defaults are used, so the flag can be passed from
                the first iteration. Default False: the caller's values are
                used (the stored values are still updated). The stored mesh is
                the previous ``mesh_optimal`` (pruned and refined, or partly
                refined after an early exit). The stored ``max_batch`` is a
                fixed number computed when that call returned, whatever its
                integrand or ``take_gradient`` setting: a value learned with
                ``take_gradient=False`` has no backpropagation memory margin
                and can be below the step size C, so pass
                ``same_f=False`` on a call that switches
                ``take_gradient``. For a batch size that follows live free
                memory, pass ``max_batch=solver.get_max_batch()`` instead.
            result_device: Device the per-step output records (nodes, y, ...)
                are moved to (default 'cpu'). An index-less 'cuda' means the
                solver's GPU; None keeps them on the solver's device.

        Returns:
            IntegrationResult with the computed integral, error estimates, the
            optimized mesh (mesh_optimal), per-step nodes, and diagnostics.

        Note:
            If mesh is provided, the solver uses these as initial barriers.
            Steps may be split or merged, but the bounds [mesh[0], mesh[-1]]
            are preserved. If mesh is None and no stored mesh is used, a
            random initial mesh is generated in [mesh_init, mesh_final].
        """
        # Set dtype based on input
        self.set_dtype_by_input(mesh=mesh, mesh_init=mesh_init, mesh_final=mesh_final)

        # Setup results device
        result_device = _resolve_device(
            result_device or self.device, self.device.index or 0
        )

        # If mesh is given set mesh_init and mesh_final, else use input, else use saved values
        mesh_init, mesh_final = self._setup_integral_bounds(mesh, mesh_init, mesh_final)

        # Replace max_batch if default it given
        force_max_batch = self.init_max_batch if max_batch is None else max_batch

        # Per-call max_adaptive_splits takes priority over the constructor value.
        max_adaptive_splits = (
            self.init_max_adaptive_splits
            if max_adaptive_splits is None
            else max_adaptive_splits
        )

        # Per-call error_on_nonfinite takes priority over the constructor value.
        # Stored on self so the evaluation helpers can read it without threading
        # it through every signature.
        self.error_on_nonfinite = (
            self.init_error_on_nonfinite
            if error_on_nonfinite is None
            else error_on_nonfinite
        )

        # Per-call error_norm / mesh_failure_tolerance take priority over the
        # constructor values. Stored on self so the error-ratio helpers read
        # them without threading them through every signature.
        self.error_norm = self.init_error_norm if error_norm is None else error_norm
        self._check_error_norm(self.error_norm)
        self.mesh_failure_tolerance = (
            self.init_mesh_failure_tolerance
            if mesh_failure_tolerance is None
            else mesh_failure_tolerance
        )
        self._check_mesh_failure_tolerance(self.mesh_failure_tolerance)
        if error_integral_reference is not None:
            if not isinstance(error_integral_reference, torch.Tensor):
                error_integral_reference = torch.tensor(error_integral_reference)
            error_integral_reference = error_integral_reference.to(self.device)
            error_integral_reference = error_integral_reference.to(self.dtype)

        # Get variables or populate with default values, send to correct device
        f, mesh_init, mesh_final, y0 = self._check_variables(
            f, mesh_init, mesh_final, y0
        )
        # Coerce any tensor in f_args onto the solver device too (it is forwarded
        # to f(t, *f_args)); DistributedEnvironment owns the device and every
        # input is moved onto it.
        f_args = tuple(a.to(self.device) if torch.is_tensor(a) else a for a in f_args)
        total_mem_usage = (
            self.init_total_mem_usage if total_mem_usage is None else total_mem_usage
        )
        MEM_ERROR = "total_mem_usage is a ratio and must be 0 < total_mem_usage <= 1"
        assert total_mem_usage <= 1.0, MEM_ERROR
        assert total_mem_usage > 0, MEM_ERROR
        # The OOM cap lasts one call; same_f=True carries it over
        # through the stored previous_max_batch, which the cap clamps.
        self._oom_max_batch = None

        # Make sure f exists and provides the correct output. Running this
        # before the memory benchmark also warms f up, so one-time costs (CUDA
        # start-up, lazy model loading, cuBLAS workspace) stay out of it.
        assert f is not None, "Must specify f or pass it during class initialization."
        assert mesh_init is not None  # narrows the Optional type for mypy
        # One point, shaped [1, T] like every batch f receives. mesh_init is
        # already on the solver's dtype and device (_check_variables).
        test_output = f(mesh_init.reshape(1, -1), *f_args)
        test_integrand, _ = self._split_f_output(test_output)
        assert len(test_integrand.shape) >= 2
        del test_output, test_integrand

        # same_f=True: the stored max_batch replaces the caller's and
        # skips the memory benchmark.
        if same_f and self.previous_max_batch is not None:
            force_max_batch = self.previous_max_batch
        if force_max_batch is None:
            self._setup_memory_checks(
                f,
                mesh_init,
                take_gradient=take_gradient,
                total_mem_usage=total_mem_usage,
                f_args=f_args,
            )
        loss_fxn = loss_fxn if loss_fxn is not None else self._integral_loss

        # Decide initial mesh:
        #   - same_f=True with a stored mesh: warm-start from it,
        #     snapping its endpoints to [mesh_init, mesh_final];
        #   - explicit mesh passed in: use it;
        #   - otherwise: generate a fresh random initial mesh.
        mesh, mesh_trackers, mesh_indices, mesh_is_given = self._setup_initial_mesh(
            mesh,
            mesh_init,
            mesh_final,
            same_f,
            random_initial_mesh,
            N_init_steps,
        )
        # max_path_change counts failing steps of the starting mesh (split
        # depth 0) across all batches, against the starting step count.
        check_path_change = mesh_is_given and self.max_path_change is not None
        n_start_steps = len(mesh) - 1
        n_start_failed = 0

        record = {}
        split_node_state = (None, None, None, None)
        # Per-panel split counter, parallel to mesh/mesh_trackers. Only
        # maintained when a depth cap or the max_path_change check needs it
        # (None ⇒ zero overhead, no behavior change).
        split_counts = (
            torch.zeros(len(mesh), dtype=torch.long, device=self.device)
            if max_adaptive_splits is not None or check_path_change
            else None
        )
        # === Main integration loop ===
        # Continues until all steps have been evaluated and accepted
        # (mesh_trackers[i] == False for all i)
        while torch.any(mesh_trackers):
            # From earlier debugging
            # if y is not None:
            #    assert max_steps >= len(y), f"{max_steps}  {len(y)}"

            (
                nodes,
                y_step_eval,
                tracked_step_eval,
                step_idxs,
                split_node_state,
            ) = self._evaluate_f_on_mesh(
                f,
                f_args,
                mesh,
                mesh_trackers,
                take_gradient,
                conserve_memory,
                force_max_batch,
                total_mem_usage,
                split_node_state,
            )

            # --- Step 3: Compute integral contributions via qudrature formula ---
            t0 = time.time()
            method_output = self._calculate_integral(
                nodes,
                y_step_eval,
                y0=torch.zeros(1, device=self.device, dtype=self.dtype),
            )
            if len(record) == 0:
                # First batch: integral is just this batch's contribution
                current_integral = method_output.integral.detach()
                all_mesh_quadratures = method_output.mesh_quadratures.detach()
                cum_mesh_quadratures = torch.cumsum(all_mesh_quadratures, 0)
            else:
                # Subsequent batches: add to previously recorded integral
                current_integral = record["integral"] + method_output.integral.detach()
                # Merge new steps into the sorted record to compute cumulative
                # sums. Placement is by mesh order (each panel's left barrier
                # looked up in mesh_indices), robust for any time dimension.
                idxs_keep, idxs_input = self._merge_positions(
                    self._mesh_order(record["nodes"][:, 0, :], mesh_indices),
                    self._mesh_order(nodes[:, 0, :], mesh_indices),
                )
                all_mesh_quadratures = self._insert_sorted_results(
                    record["mesh_quadratures"],
                    idxs_keep,
                    method_output.mesh_quadratures,
                    idxs_input,
                )
                cum_mesh_quadratures = torch.cumsum(all_mesh_quadratures, 0)[idxs_input]
            if self.speed_logger:
                self.speed_logger.debug("calc integrals: %s", time.time() - t0)

            # --- Step 4: Compute error ratios for each step ---
            t0 = time.time()
            # The tolerance denominator is max(atol, rtol*|reference_integral|)
            # (atol + rtol*|reference_integral| for failure_fraction). By
            # default the reference is the running integral, which is
            # incomplete in the early batches; a user-supplied
            # error_integral_reference (≈ the true total integral) replaces it
            # so rtol is judged against the right scale from the first batch.
            reference_integral = current_integral
            if error_integral_reference is not None:
                reference_integral = error_integral_reference
            error_ratios, error_ratios_2steps, error_ratios_per_dim = (
                self._compute_error_ratios(
                    mesh_quadrature_errors=method_output.mesh_quadrature_errors,
                    mesh_quadratures=method_output.mesh_quadratures,
                    cum_mesh_quadratures=cum_mesh_quadratures,
                    integral=reference_integral,
                )
            )
            keep_mask, remove_mask = self._accept_reject_masks(
                error_ratios, error_ratios_per_dim
            )
            if self.speed_logger:
                self.speed_logger.debug("calculate errors: %s", time.time() - t0)
            assert len(y_step_eval) == len(error_ratios)
            assert len(y_step_eval) - 1 == len(error_ratios_2steps), (
                f" y: {y_step_eval.shape} | ratios: {error_ratios_2steps.shape} | nodes: {nodes.shape}"
            )
            logger.debug("error_ratios: %s", error_ratios)
            logger.debug("error_ratios_2steps: %s", error_ratios_2steps)

            # Early exit if too many steps of a given or stored starting mesh
            # fail. Bug B6 fix: previously returned bare `None`, breaking the
            # documented return-type contract. Now returns an
            # IntegrationResult with converged=False populated from the
            # most-recent batch's intermediate result so callers can
            # inspect partial state instead of having to special-case
            # None.
            if check_path_change:
                # A "failed step" is one that would be split under the active
                # error_norm scheme (consistent with the accept/reject masks).
                # Only steps of the starting mesh (split depth 0) count, each
                # once (it is evaluated once), against the starting step count,
                # so the ratio covers the whole starting mesh even when it spans
                # several batches. The count only grows, so the call exits as
                # soon as the ratio is certain to reach max_path_change.
                # Both set whenever check_path_change (narrows for mypy).
                assert split_counts is not None
                assert self.max_path_change is not None
                is_start_step = split_counts[step_idxs] == 0
                n_start_failed += int((remove_mask & is_start_step).sum())
                fail_ratio = n_start_failed / n_start_steps
                if fail_ratio >= self.max_path_change:
                    logger.warning(
                        "%.1f%% of the starting mesh's integration steps failed "
                        "error requirements, which is at least max_path_change "
                        "(%s), now exiting.",
                        fail_ratio * 100,
                        self.max_path_change,
                    )
                    # Store this call's mesh and max_batch for same_f
                    # (as on convergence), with this batch's failing steps
                    # split as the loop would have done next, so the next call
                    # refines further instead of restarting from (and stopping
                    # on) the same mesh: the default path evaluates the whole
                    # starting mesh in its first batch, before any split.
                    mesh = self._adaptively_increase_mesh(
                        method_output=None,
                        error_ratios=error_ratios,
                        y_step_eval=None,
                        nodes=None,
                        mesh=mesh,
                        mesh_idxs=step_idxs,
                        mesh_trackers=mesh_trackers.clone(),
                        split_counts=split_counts,
                        max_adaptive_splits=max_adaptive_splits,
                        keep_mask=keep_mask,
                        remove_mask=remove_mask,
                    )[4]
                    self.mesh_previous = mesh
                    self.previous_max_batch = self.get_max_batch(
                        total_mem_usage, force_max_batch
                    )
                    # Place the partial result on result_device for a
                    # device-consistent return, matching the converged path.
                    # integral, integral_error and y0 stay on the integration
                    # device (the primary answer), as in the converged path.
                    return IntegrationResult(
                        integral=method_output.integral,
                        integral_error=method_output.integral_error,
                        # mesh family stays on the integration device (warm-start).
                        mesh_optimal=mesh,
                        mesh_init=mesh_init,
                        mesh_final=mesh_final,
                        # Flatten nodes/y/tracked_variables to match the
                        # converged path's output format.
                        nodes=self._flatten_output(nodes.to(result_device)),
                        h=method_output.h.to(result_device),
                        y=self._flatten_output(y_step_eval.to(result_device)),
                        tracked_variables=tuple(
                            self._flatten_output(tv.to(result_device))
                            for tv in tracked_step_eval
                        )
                        if tracked_step_eval is not None
                        else None,
                        mesh_quadratures=method_output.mesh_quadratures.to(
                            result_device
                        ),
                        mesh_quadrature_errors=torch.abs(
                            method_output.mesh_quadrature_errors
                        ).to(result_device),
                        error_ratios=error_ratios.to(result_device),
                        loss=None,
                        gradient_taken=take_gradient,
                        y0=y0,
                        converged=False,
                    )

            # --- Step 4b: Re-check already-accepted (recorded) panels ---
            # The accept/reject denominator (built from reference_integral, Step 4)
            # drifts as the running integral changes, so a panel accepted early
            # can violate the *current* tolerance. Re-check the recorded panels
            # against the SAME reference_integral the batch just used (so a panel
            # accepted this iteration -- not yet in the record -- cannot
            # immediately re-fail) and split any that now fail in the same mesh
            # update below (extra_split_idxs). Only when not taking gradients:
            # per-batch backward has not run, so removing/re-splitting a recorded
            # panel cannot double-count gradients. Skipped when a fixed
            # error_integral_reference pins the denominator (no drift).
            recheck_active = (
                not take_gradient
                and len(record) > 0
                and not (
                    self.use_absolute_error_ratio
                    and error_integral_reference is not None
                )
            )
            extra_split_idxs = None
            record_keep_mask = None
            if recheck_active:
                # All inputs are integration-device-resident (mesh_quadratures
                # and mesh_quadrature_errors are in _DEVICE_RESIDENT_KEYS;
                # reference_integral is on self.device) -- no host<->device copy.
                rec_quad = record["mesh_quadratures"]
                rec_ratios, _, rec_per_dim = self._compute_error_ratios(
                    mesh_quadrature_errors=record["mesh_quadrature_errors"],
                    mesh_quadratures=rec_quad,
                    cum_mesh_quadratures=torch.cumsum(rec_quad, 0),
                    integral=reference_integral,
                )
                _, rec_remove = self._accept_reject_masks(rec_ratios, rec_per_dim)
                rec_positions = self._mesh_order(record["nodes"][:, 0, :], mesh_indices)
                # Respect the split cap so the record stays consistent with the
                # mesh: a failing panel already at the cap is not split, so it
                # must stay recorded.
                splittable = rec_remove
                if max_adaptive_splits is not None and split_counts is not None:
                    splittable = rec_remove & (
                        split_counts[rec_positions] < max_adaptive_splits
                    )
                extra_split_idxs = rec_positions[splittable]
                record_keep_mask = ~splittable

            # --- Step 5: Adaptive refinement ---
            # Split steps with error_ratio >= 1, keep steps with error_ratio < 1,
            # and update barriers/trackers accordingly. extra_split_idxs adds the
            # re-checked recorded panels that failed, so both the new batch and
            # the stale recorded panels are bisected in this single mesh update.
            (
                method_output,
                y_step_eval,
                tracked_step_eval,
                nodes,
                mesh,
                mesh_trackers,
                mesh_indices,
                error_ratios,
                split_counts,
            ) = self._adaptively_increase_mesh(
                method_output=method_output,
                error_ratios=error_ratios,
                y_step_eval=y_step_eval,
                nodes=nodes,
                mesh=mesh,
                mesh_idxs=step_idxs,
                mesh_trackers=mesh_trackers,
                tracked_step_eval=tracked_step_eval,
                split_counts=split_counts,
                max_adaptive_splits=max_adaptive_splits,
                keep_mask=keep_mask,
                remove_mask=remove_mask,
                extra_split_idxs=extra_split_idxs,
            )
            # Verify barrier ordering after adaptive refinement.
            # Any-T invariant: consecutive barriers are distinct (no
            # zero-length panels), which is all that is meaningful for a
            # multi-dimensional path.
            assert torch.all(torch.any(mesh[1:] != mesh[:-1], dim=-1))
            # For 1-D time the barriers must additionally be monotonic.
            if mesh.shape[-1] == 1:
                mesh_diff = mesh[1:, 0] - mesh[:-1, 0]
                assert torch.all(mesh_diff + self.atol_assert > 0) or torch.all(
                    mesh_diff - self.atol_assert < 0
                )

            # --- Step 5b: Drop re-split recorded panels from the record ---
            # The recorded panels flagged above were just bisected in the mesh
            # update; remove their now-stale entries (their children will be
            # re-evaluated as fresh panels). Done before _record_results so the
            # remaining record stays strictly mesh-ordered for the merge.
            if recheck_active and not bool(torch.all(record_keep_mask)):
                record = self._remove_failed_record_panels(
                    record, record_keep_mask, loss_fxn
                )

            # --- Step 6: Record accepted results and handle gradients ---
            if nodes.shape[0] > 0:
                # take_gradient = take_gradient or (
                #    self.training and (torch.any(mesh_trackers) or take_gradient)
                # )
                intermediate_results = IntegrationResult(
                    integral=method_output.integral,
                    integral_error=method_output.integral_error,
                    nodes=nodes,
                    h=method_output.h,
                    y=y_step_eval,
                    tracked_variables=tracked_step_eval,
                    mesh_quadratures=method_output.mesh_quadratures,
                    mesh_quadrature_errors=torch.abs(
                        method_output.mesh_quadrature_errors
                    ),
                    error_ratios=error_ratios,
                    loss=None,
                    gradient_taken=take_gradient,
                    mesh_init=mesh_init,
                    mesh_final=mesh_final,
                    y0=0,
                )

                # TODO make sure growing string loss center is a time not the number of evals because eval number is meaningless here.
                # Compute loss
                loss = loss_fxn(intermediate_results)

                # Backpropagate gradients through the integration if requested
                if take_gradient and loss.requires_grad:
                    loss.backward()

                # Accumulate into the record
                intermediate_results.loss = loss
                record = self._record_results(
                    record=record,
                    take_gradient=take_gradient,
                    results=intermediate_results,
                    mesh_indices=mesh_indices,
                    result_device=result_device,
                )

            del y_step_eval

        # === Post-convergence: sort results and optimize the mesh ===
        record = self._sort_record(record, mesh_indices)
        # Prune over-resolved steps and refine under-resolved ones. This re-derives
        # node positions through the method tableau, so it must run with the
        # tableau and device-bound allocations co-located with its inputs. The
        # bulky per-step fields (nodes, mesh_quadrature_errors) already live on
        # result_device, so we evaluate the whole computation there -- moving the
        # small tableau to result_device for the duration -- rather than copying
        # those tensors back to the integration device. The two device-resident
        # fields (mesh_quadratures, integral) are the only ones that must be moved
        # to result_device to join them.
        with self._integration_on_device(result_device):
            mesh_optimal = self._get_optimal_mesh(
                nodes=record["nodes"],
                mesh_quadratures=record["mesh_quadratures"].to(result_device),
                mesh_quadrature_errors=record["mesh_quadrature_errors"].to(
                    result_device
                ),
                integral=record["integral"].to(result_device),
                mesh=mesh.to(result_device),
            )
        # mesh_optimal is fed back into the integrator as the warm-start mesh on
        # the next call, so it must match the integration device (its endpoints
        # are mesh_init/mesh_final, which live on self.device).
        mesh_optimal = mesh_optimal.to(self.device)
        # Stored together for same_f=True; only a returning call writes
        # them (also on the max_path_change exit), so both come from one call.
        self.mesh_previous = mesh_optimal
        self.previous_max_batch = self.get_max_batch(total_mem_usage, force_max_batch)

        # Move the resident record fields to result_device so the rest of the
        # returned IntegrationResult lives on result_device. The integration-
        # output scalars (integral, integral_error) and mesh_optimal stay on the
        # integration device -- the scalars are the primary answer and
        # mesh_optimal is reused as the warm-start mesh.
        for key in self._DEVICE_RESIDENT_KEYS:
            if key in record and key not in self._RESULT_INTEGRATION_KEYS:
                record[key] = record[key].to(result_device)

        # Tracked variables are stored in the record as a list; expose a tuple.
        record_tracked: tuple[torch.Tensor, ...] | None = None
        if "tracked_variables" in record:
            record_tracked = tuple(record["tracked_variables"])

        return IntegrationResult(
            # integral, integral_error and y0 stay on the integration device.
            integral=record["integral"] + y0,
            integral_error=record["integral_error"],
            # The mesh family (mesh_optimal/init/final) stays on the integration
            # device: mesh_optimal is the warm-start mesh and its endpoints are
            # mesh_init/mesh_final, so they must share a device.
            mesh_optimal=mesh_optimal,
            mesh_init=mesh_init,
            mesh_final=mesh_final,
            nodes=self._flatten_output(record["nodes"]),
            h=record["h"],
            y=self._flatten_output(record["y"]),
            # Flatten tracked variables the same way so they stay aligned with
            # the flattened nodes/y.
            tracked_variables=tuple(self._flatten_output(tv) for tv in record_tracked)
            if record_tracked is not None
            else None,
            mesh_quadratures=record["mesh_quadratures"],
            mesh_quadrature_errors=torch.abs(record["mesh_quadrature_errors"]),
            error_ratios=record["error_ratios"],
            loss=record["loss"],
            gradient_taken=take_gradient,
            y0=y0,
        )

    # -------------------------------------------------------------------------------- #
    #                             ADAPTIVE MESH REFINEMENT                             #
    # -------------------------------------------------------------------------------- #

    def _adaptively_increase_mesh(
        self,
        method_output: MethodOutput | None,
        error_ratios: torch.Tensor,
        y_step_eval: torch.Tensor | None,
        nodes: torch.Tensor | None,
        mesh: torch.Tensor,
        mesh_idxs: torch.Tensor,
        mesh_trackers: torch.Tensor,
        tracked_step_eval: tuple[torch.Tensor, ...] | None = None,
        split_counts: torch.Tensor | None = None,
        max_adaptive_splits: int | None = None,
        keep_mask: torch.Tensor | None = None,
        remove_mask: torch.Tensor | None = None,
        extra_split_idxs: torch.Tensor | None = None,
    ) -> tuple[
        MethodOutput | None,
        torch.Tensor | None,
        tuple[torch.Tensor, ...] | None,
        torch.Tensor | None,
        torch.Tensor,
        torch.Tensor,
        torch.Tensor,
        torch.Tensor | None,
    ]:
        """
        Accept accurate steps and split inaccurate ones.

        This is the core adaptive refinement operation. For each evaluated step:
        - If error_ratio < 1.0: ACCEPT the step. Mark it as done in mesh_trackers.
          Keep its integral contribution.
        - If error_ratio >= 1.0: REJECT the step. Insert a new midpoint barrier
          between its start and end, splitting it into two smaller steps. These
          new steps will be evaluated in the next iteration.
        - If error_ratio is non-finite (NaN/Inf): ACCEPT the step. Splitting
          cannot reduce a non-finite error (the integrand is singular at a
          node), so such steps are accepted rather than split forever. The
          non-finite value propagates into the recorded integral.

        The midpoint barrier is placed at the average of the two neighboring
        barriers: mesh_new = (mesh_left + mesh_right) / 2.

        When ``split_counts`` and ``max_adaptive_splits`` are provided, a step
        whose split count has already reached ``max_adaptive_splits`` is
        accepted even if its error_ratio >= 1.0 (it is not split further). Each
        split increments the count: both children of a depth-N step are depth
        N+1.

        Args:
            method_output: RK results from the current batch (may be None when
                called during post-convergence optimization). If present, rejected
                steps are removed from it.
            error_ratios: Per-step error ratios. Shape: [N_batch].
            y_step_eval: Integrand evaluations for current batch. Shape: [N_batch, C, D].
            nodes: Quadrature points for current batch. Shape: [N_batch, C, T].
            mesh: All barrier positions. Shape: [M, T].
            mesh_idxs: Indices into mesh for the steps
                in the current batch. Shape: [N_batch].
            mesh_trackers: Boolean array tracking which steps need evaluation.
                Shape: [M].
            tracked_step_eval: Optional tuple of tracked-variable tensors for
                the current batch, each shape [N_batch, C, *var_dims]. Filtered
                to accepted steps alongside y_step_eval. None when the integrand
                emits no tracked variables.
            split_counts: Optional per-panel split-count array aligned with
                mesh. Shape: [M]. None disables depth tracking (the
                post-convergence caller passes None).
            max_adaptive_splits: Optional cap on the per-panel split count.
                Panels at or above this count are accepted instead of split.
                None disables the cap.
            keep_mask: Optional precomputed accept mask (True = accept), shape
                [N_batch], from ``_accept_reject_masks``. When provided together
                with ``remove_mask`` the scheme-aware decision is used as-is;
                when omitted the legacy ``error_ratios < 1.0`` rule is applied
                (kept for direct/unit callers).
            remove_mask: Optional precomputed reject (split) mask, the
                complement of ``keep_mask``.
            extra_split_idxs: Optional extra mesh positions to bisect in the
                same update, in addition to the batch's rejected steps. Used by
                the accepted-panel re-check to split already-recorded panels
                that failed the tolerance after the running integral drifted.
                Must be ascending and disjoint from ``mesh_idxs[remove_mask]``.
                Their barriers are re-activated (tracker set True) so both
                children are re-evaluated. ``None`` ⇒ behaviour identical to
                before (batch-only split).

        Returns:
            Tuple of (method_output, y_step_eval, tracked_step_eval, nodes,
            mesh_new, mesh_trackers_new, error_ratios_kept, split_counts_new):
                - method_output: Updated with rejected steps removed.
                - y_step_eval: Kept evaluations only.
                - tracked_step_eval: Kept tracked variables only (or None).
                - nodes: Kept quadrature points only.
                - mesh_new: Barriers with new midpoints inserted.
                - mesh_trackers_new: Updated tracker with new steps marked True.
                - error_ratios_kept: Error ratios for accepted steps only.
                - split_counts_new: Per-panel split counts for mesh_new, with
                  split children incremented (or None if split_counts is None).
        """
        if keep_mask is None or remove_mask is None:
            # Legacy/direct-call path: derive the masks from a scalar error
            # ratio. Non-finite error ratios (NaN/Inf) cannot be reduced by
            # splitting: the integrand returned NaN/Inf at a node, and a midpoint
            # split reuses the same boundary node, so the value regenerates.
            # Accept such panels unconditionally so the main loop always
            # terminates -- with the default uncapped max_adaptive_splits,
            # routing them to the split branch would refine forever (and a +Inf
            # ratio is >= 1.0, so it would otherwise be split forever too).
            nonfinite = ~torch.isfinite(error_ratios)
            keep_mask = (error_ratios < 1.0) | nonfinite
            remove_mask = (error_ratios >= 1.0) & ~nonfinite
        # Panels that have already been split the maximum number of times are
        # accepted as-is rather than split further.
        if max_adaptive_splits is not None and split_counts is not None:
            at_max = remove_mask & (split_counts[mesh_idxs] >= max_adaptive_splits)
            keep_mask = keep_mask | at_max
            remove_mask = remove_mask & ~at_max
        mesh_trackers[mesh_idxs[keep_mask]] = False

        # Mesh positions to bisect this update: the batch's rejected steps plus
        # any extra positions (already-accepted panels that failed the re-check
        # against the drifted tolerance). The recorded panels were accepted
        # (tracker False), so re-activate the whole split set to ensure both
        # children of every bisected panel are re-evaluated. With no extras this
        # is exactly the previous batch-only behaviour (and trackers untouched
        # here, matching the original).
        split_idxs = mesh_idxs[remove_mask]
        if extra_split_idxs is not None and extra_split_idxs.numel() > 0:
            split_idxs = torch.sort(torch.cat([split_idxs, extra_split_idxs])).values
            # Batch (tracker True) and recorded (tracker False) positions are
            # disjoint, so the combined set must be strictly ascending; a
            # duplicate would corrupt the midpoint-offset math below.
            assert torch.all(split_idxs[1:] > split_idxs[:-1])
            mesh_trackers[split_idxs] = True

        N_t_add = len(split_idxs)
        # Allocate new barriers array with room for inserted midpoints. All
        # allocations follow ``mesh.device`` so this runs on the integration
        # device in the loop and on result_device in the post-convergence pass.
        mesh_new = torch.nan * torch.ones(
            (N_t_add + len(mesh), mesh.shape[-1]),
            dtype=self.dtype,
            device=mesh.device,
        )
        mesh_trackers_new = torch.ones(
            N_t_add + len(mesh), dtype=bool, device=mesh.device
        )

        # Transfer existing barriers to their new positions in the expanded array.
        # Each rejected step causes a +1 offset for all subsequent barriers
        # (because a midpoint is being inserted). idx_offset tracks this shift.
        idx_offset = torch.zeros(len(mesh), dtype=torch.long, device=mesh.device)
        idx_offset[split_idxs + 1] = 1
        idx_offset = torch.cumsum(idx_offset, dim=0)
        idxs_transfer = idx_offset + torch.arange(len(mesh), device=mesh.device)
        mesh_new[idxs_transfer] = mesh.clone()
        mesh_trackers_new[idxs_transfer] = mesh_trackers.clone()

        # Insert new midpoint barriers between the start and end of rejected steps.
        # The midpoint is placed at (left_barrier + right_barrier) / 2.
        idxs_new = split_idxs + torch.arange(N_t_add, device=mesh.device) + 1
        t_add_barriers = 0.5 * (mesh_new[idxs_new - 1] + mesh_new[idxs_new + 1])
        mesh_new[idxs_new] = t_add_barriers
        assert torch.sum(torch.isnan(mesh_new)) == 0
        assert len(idxs_new) + len(idxs_transfer) == len(mesh_new)

        # Expand the per-panel split counts the same way as the barriers: carry
        # existing counts to their new positions, then bump both children of
        # each split panel to parent_count + 1.
        if split_counts is not None:
            split_counts_new = torch.zeros(
                len(mesh_new), dtype=torch.long, device=mesh_new.device
            )
            split_counts_new[idxs_transfer] = split_counts.clone()
            parent_counts = split_counts[split_idxs]
            # left child = transferred parent barrier; right child = new midpoint
            split_counts_new[idxs_transfer[split_idxs]] = parent_counts + 1
            split_counts_new[idxs_new] = parent_counts + 1
        else:
            split_counts_new = None

        if method_output is not None:
            method_output.mesh_quadratures = method_output.mesh_quadratures[keep_mask]
            method_output.mesh_quadrature_errors = method_output.mesh_quadrature_errors[
                keep_mask
            ]
            method_output.h = method_output.h[keep_mask]
            method_output.integral = torch.sum(method_output.mesh_quadratures, 0)
            method_output.integral_error = torch.sum(
                method_output.mesh_quadrature_errors, 0
            )
        if y_step_eval is not None:
            y_step_eval = y_step_eval[keep_mask]
        if tracked_step_eval is not None:
            tracked_step_eval = tuple(tv[keep_mask] for tv in tracked_step_eval)
        if nodes is not None:
            nodes = nodes[keep_mask]
        return (
            method_output,
            y_step_eval,
            tracked_step_eval,
            nodes,
            mesh_new,
            mesh_trackers_new,
            self._get_mesh_indices(mesh_new),
            error_ratios[keep_mask],
            split_counts_new,
        )

    @staticmethod
    def _split_f_output(
        out,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, ...] | None]:
        """
        Normalize the integrand's output into (integrand, tracked_variables).

        The integrand ``f`` may return either:
        - a bare integrand tensor (existing contract) -> tracked is None, or
        - a 2-tuple ``(integrand, tracked_variables)`` where
          ``tracked_variables`` is a tuple of tensors, a single tensor (wrapped
          into a 1-tuple), or ``None``.

        Args:
            out: The raw return value of a call to ``f``.

        Returns:
            Tuple of (integrand_tensor, tracked_tuple_or_None).
        """
        if isinstance(out, (tuple, list)) and len(out) == 2:
            integrand, tracked = out
            if tracked is None:
                return integrand, None
            if torch.is_tensor(tracked):
                tracked = (tracked,)
            return integrand, tuple(tracked)
        return out, None

    def _check_f_output_finite(self, integrand, nodes_flat, max_report=5):
        """
        Raise a located ``ValueError`` if an integrand batch is non-finite.

        A NaN/Inf integrand value poisons the panel's error ratio. Detecting it
        at the source (rather than letting it silently propagate into a NaN
        result, or stall the adaptive loop) gives the user an actionable error
        naming the offending ``t``. Gated on ``self.error_on_nonfinite`` (set
        from the ``integrate(error_on_nonfinite=...)`` argument).

        Args:
            integrand: The integrand tensor for this batch (shape ``[B, D]``,
                with ``B = N*C`` for full nodes or the slice size for split
                nodes). May also be a bare Python scalar if ``f`` returns a
                number, in which case finiteness is checked with
                ``math.isfinite`` and no node localization is reported.
            nodes_flat: The flattened node coordinates fed to ``f`` for this
                batch. Shape ``[B, T]``. Used only to report offending ``t``.
            max_report: Maximum number of offending ``t`` values to list.

        Raises:
            ValueError: If ``self.error_on_nonfinite`` and any value is
                non-finite. When ``self.error_on_nonfinite`` is False this is a
                no-op; the always-on ``_adaptively_increase_mesh`` guard keeps
                the run alive instead.
        """
        if not self.error_on_nonfinite:
            return
        if not torch.is_tensor(integrand):
            # Bare scalar (e.g. examples.identity returns int 1). math.isfinite
            # handles int/float; there is no node to localize to.
            if not math.isfinite(integrand):
                raise ValueError(
                    f"Integrand f returned a non-finite scalar value "
                    f"({integrand}). Pass error_on_nonfinite=False to return a "
                    f"NaN-containing result instead of raising."
                )
            return
        with torch.no_grad():
            finite = torch.isfinite(integrand)
            if finite.all():
                return
            # Reduce over the output (D) dimension: a node is bad if ANY of its
            # output components is non-finite. [B, D] -> [B].
            bad_rows = ~finite.reshape(integrand.shape[0], -1).all(dim=1)
            bad_idx = torch.nonzero(bad_rows, as_tuple=False).flatten()
            n_bad = int(bad_idx.numel())
            bad_t = nodes_flat[bad_idx[:max_report]].detach().cpu().tolist()
        suffix = "" if n_bad <= max_report else f" (+{n_bad - max_report} more)"
        raise ValueError(
            f"Integrand f returned non-finite values (NaN/Inf) at {n_bad} of "
            f"{integrand.shape[0]} evaluation node(s). First offending t "
            f"value(s): {bad_t}{suffix}. This usually means f is singular there "
            f"(e.g. a boundary singularity or degenerate parameters). Pass "
            f"error_on_nonfinite=False to accept the affected panels and return "
            f"a NaN-containing result instead of raising."
        )

    def _evaluate_f_on_mesh(
        self,
        f,
        f_args,
        mesh,
        mesh_trackers,
        take_gradient,
        conserve_memory,
        force_max_batch,
        total_mem_usage,
        split_node_state,
    ):
        # Determine how many f evaluations fit in one batch based on memory
        max_batch = self.get_max_batch(total_mem_usage, force_max_batch)

        # Rescue a zero budget to the minimum workable value of 1 before
        # dispatching to either evaluation path. Placed ahead of the
        # take_gradient branch so neither _evaluate_f_on_full_nodes nor
        # _evaluate_f_on_split_nodes is ever entered with max_batch=0. A 0 here
        # comes from the dynamic memory estimate collapsing (or an explicit
        # max_batch=0); it is always a misconfiguration, hence the warning.
        if max_batch == 0:
            logger.warning(
                "max_batch is 0, increasing to 1. This is a significant issue and "
                "should be addressed. Either your memory is too small and you will "
                "get an OOM error, or your system's memory is being significantly "
                "underutilized and removing the benefits of padaquad's "
                "parallelization. For the latter case, increase max_batch or "
                "total_mem_usage to be closer to 1.0"
            )
            max_batch = 1

        # max_batch should not exceed the remaining number of f evaluations
        batches_left = torch.sum(mesh_trackers) * self.C
        assert batches_left > 0
        max_batch = max_batch if max_batch < batches_left else batches_left
        max_mesh_steps = max_batch // self.C

        step_idxs = torch.arange(len(mesh), device=self.device)
        step_idxs = step_idxs[mesh_trackers]

        if take_gradient:
            return self._evaluate_f_on_full_nodes(
                f, f_args, mesh, step_idxs, max_mesh_steps
            )
        else:
            if conserve_memory:
                return self._evaluate_f_on_split_residual_nodes(
                    f,
                    f_args,
                    mesh,
                    step_idxs,
                    max_batch,
                    max_mesh_steps,
                    split_node_state,
                )
            else:
                return self._evaluate_f_on_split_nodes(
                    f,
                    f_args,
                    mesh,
                    step_idxs,
                    max_batch,
                )

    def _evaluate_f_on_full_nodes(self, f, f_args, mesh, step_idxs, max_mesh_steps):
        assert max_mesh_steps >= 1, (
            "Not enough free memory to run 1 integration steps for take_gradient=True. Set take_gradient=False if the gradient of the integral is not needed and consider increasing total_mem_usage"
        )
        # Find barrier indices where mesh_trackers is True, take up to max_steps
        step_idxs = step_idxs[:max_mesh_steps]
        # Place C quadrature points within each selected step
        nodes = self._compute_nodes(mesh[step_idxs], mesh[step_idxs + 1])

        # Flatten [N, C, T] -> [N*C, T] for batch evaluation, then reshape back
        nodes_flat = torch.flatten(nodes, start_dim=0, end_dim=-2)
        assert torch.all(nodes_flat[1:] - nodes_flat[:-1] + self.atol_assert >= 0)
        node_evals, tracked = self._split_f_output(f(nodes_flat, *f_args))
        self._check_f_output_finite(node_evals, nodes_flat)

        # Reshape nodes and evaluations before returning
        unflatten = (len(step_idxs), self.C, -1)
        nodes = torch.reshape(nodes_flat, unflatten)
        f_evals = torch.reshape(node_evals, unflatten)

        # Tracked variables ride alongside the integrand: reshape each to
        # [N, C, *var_dims] and detach (diagnostic-only, no autograd).
        tracked_out = None
        if tracked is not None:
            tracked_out = tuple(
                tv.reshape(len(step_idxs), self.C, *tv.shape[1:]).detach()
                for tv in tracked
            )

        return nodes, f_evals, tracked_out, step_idxs, (None, None, None, None)

    def _evaluate_f_in_batches(
        self, f, f_args, nodes_flat, num_nodes_to_eval, max_batch
    ) -> tuple[list, list | None, int]:
        """
        Evaluate f on nodes_flat in batches of at most max_batch nodes.

        Shared by both split handlers. Batches run until at least
        num_nodes_to_eval nodes are evaluated; the last batch may run past it,
        and _evaluate_f_on_split_residual_nodes keeps that overshoot as the
        residual. On an out-of-memory error the failed batch is retried with a
        smaller max_batch, cached in _oom_max_batch.

        Returns:
            f_evals: per-batch integrand outputs, each [batch, D].
            tracked_lists: tracked_lists[k] is the per-batch list of the k-th
                tracked variable, or None when f emits no tracked variables.
            num_nodes_evaluated: nodes evaluated (>= num_nodes_to_eval).
        """
        f_evals = []
        tracked_lists: list[list] | None = None
        num_nodes_evaluated = 0
        while num_nodes_evaluated < num_nodes_to_eval:
            out_of_memory = False
            try:
                f_output = f(
                    nodes_flat[num_nodes_evaluated : num_nodes_evaluated + max_batch],
                    *f_args,
                )
            except (RuntimeError, MemoryError) as e:
                if not _is_out_of_memory(e):
                    raise
                if max_batch == 1:
                    raise torch.OutOfMemoryError(
                        f"{e}\n\nSingle integrand (f) evaluation failed to fit in memory, batch size cannot be reduced."
                    ) from e
                out_of_memory = True
            if out_of_memory:
                # Cleaned up here, after the except block: inside it the error's
                # traceback still holds f's tensors, so they cannot be freed.
                free_mem, total_mem = self._get_memory()
                self._release_memory()
                # Seed from the live max_batch on the first OOM (_oom_max_batch
                # starts as None), then shrink. min(..., prev - 1) guarantees a
                # strict decrease -- plain round(0.75 * 2) == 2 would stick and
                # retry forever. int(...) coerces a torch scalar (max_batch is a
                # tensor in the integrate loop) to a Python int so round()/min()
                # work.
                prev = int(
                    self._oom_max_batch
                    if self._oom_max_batch is not None
                    else max_batch
                )
                self._oom_max_batch = max(1, int(min(round(0.75 * prev), prev - 1)))
                logger.warning(
                    f"Caught OOM with {free_mem} GB free of {total_mem} GB. "
                    f"Reducing max_batch from {max_batch} to {self._oom_max_batch}."
                    "If this warning appears often, consider reducing max_batch to "
                    "avoid deleting and rerunning evaluations."
                )
                max_batch = self._oom_max_batch
                continue

            integrand, tracked = self._split_f_output(f_output)
            self._check_f_output_finite(
                integrand,
                nodes_flat[num_nodes_evaluated : num_nodes_evaluated + max_batch],
            )
            f_evals.append(integrand)
            if tracked is not None:
                if tracked_lists is None:
                    tracked_lists = [[] for _ in tracked]
                for k, tv in enumerate(tracked):
                    tracked_lists[k].append(tv)

            num_nodes_evaluated += len(integrand)
            del integrand

        assert num_nodes_evaluated >= num_nodes_to_eval
        return f_evals, tracked_lists, num_nodes_evaluated

    def _evaluate_f_on_split_nodes(
        self,
        f,
        f_args,
        mesh,
        step_idxs,
        max_batch,
    ):
        # A zero budget is unsatisfiable here and would divide-by-zero below
        # (the % max_batch layout math). Callers route through
        # _evaluate_f_on_mesh, which rescues max_batch=0 -> 1 before dispatch;
        # this assert guards direct/unit callers with an explicit message.
        assert max_batch > 0

        # Place C quadrature points within each selected step
        nodes = self._compute_nodes(mesh[step_idxs], mesh[step_idxs + 1])

        # Flatten [N, C, T] -> [N*C, T] for batch evaluation, then reshape back
        nodes_flat = torch.flatten(nodes, start_dim=0, end_dim=-2)
        f_evals, tracked_lists, _ = self._evaluate_f_in_batches(
            f, f_args, nodes_flat, len(nodes_flat), max_batch
        )

        # Combine split evaluations and nodes
        f_evals = torch.concatenate(f_evals, dim=0)

        # Combine tracked variables the same way (prepending the carried split).
        tracked_combined = None
        if tracked_lists is not None:
            tracked_combined = [torch.concatenate(tl, dim=0) for tl in tracked_lists]

        # Reshape and combine outputs
        nodes = torch.reshape(nodes_flat, (-1, self.C, nodes_flat.shape[-1]))
        f_evals = torch.reshape(f_evals, (-1, self.C, f_evals.shape[-1]))
        if tracked_combined is not None:
            tracked_combined = [
                tv.reshape(-1, self.C, *tv.shape[1:]) for tv in tracked_combined
            ]

        tracked_out = (
            tuple(tv.detach() for tv in tracked_combined)
            if tracked_combined is not None
            else None
        )

        return nodes, f_evals, tracked_out, step_idxs, (None, None, None, None)

    def _evaluate_f_on_split_residual_nodes(
        self,
        f,
        f_args,
        mesh,
        step_idxs,
        max_batch,
        max_mesh_steps,
        split_node_state,
    ):
        # A zero budget is unsatisfiable here and would divide-by-zero below
        # (the % max_batch layout math). Callers route through
        # _evaluate_f_on_mesh, which rescues max_batch=0 -> 1 before dispatch;
        # this assert guards direct/unit callers with an explicit message.
        assert max_batch > 0
        # When max_batch < C the budget cannot hold even one whole panel, so the
        # dispatcher's max_batch // C floors to 0. Unlike the full-nodes path
        # (which requires >= 1 whole panel per batch), the split path evaluates a
        # single panel's C nodes across several max_batch-sized batches and
        # carries the remainder forward in split_node_state. Force at least one
        # panel of work so that sub-C budgets still make progress.
        max_mesh_steps = 1 if max_mesh_steps == 0 else max_mesh_steps
        # Gather nodes and evaluations from previous split. split_mesh_idx
        # stores the residual panel's left-barrier *coordinate* (not an
        # integer index), so it survives mesh refinement: the calling
        # integrate loop inserts midpoints between iterations, shifting
        # any cached integer index. Barriers themselves are never removed
        # mid-loop, so a stored coordinate stays resolvable.
        split_nodes, split_f_evals, split_tracked, split_mesh_idx = split_node_state
        num_split_nodes = 0 if split_mesh_idx is None else len(split_nodes)
        num_remaining_split_nodes = self.C - num_split_nodes

        if split_mesh_idx is not None:
            # Translate the cached barrier coordinate back to an index in
            # the current (possibly refined) mesh.
            split_mesh_idx = torch.where((mesh == split_mesh_idx).all(dim=-1))[0][0]

        if split_mesh_idx is None:
            num_mesh_steps = max_mesh_steps
            if (max_mesh_steps * self.C) % max_batch != 0:
                num_mesh_steps += 1

            step_idxs = step_idxs[:num_mesh_steps]

            # Place C quadrature points within each selected step
            nodes = self._compute_nodes(mesh[step_idxs], mesh[step_idxs + 1])

            # Flatten [N, C, T] -> [N*C, T] for batch evaluation, then reshape back
            nodes_flat = torch.flatten(nodes, start_dim=0, end_dim=-2)
            num_nodes_to_eval = max_mesh_steps * self.C
        else:
            num_mesh_steps = max_mesh_steps + 1
            # Add another mesh step if number of saved split nodes is too small
            if (
                num_remaining_split_nodes
                < ((max_mesh_steps * self.C) % max_batch) - max_batch
            ):
                num_mesh_steps += 1

            # Get mesh step indices
            step_idxs = step_idxs[:num_mesh_steps]

            # Move the previously split mesh index to the front
            split_idx = torch.where(step_idxs == split_mesh_idx)[0]
            if len(split_idx):
                split_idx = split_idx[0]
                step_idxs[1 : split_idx + 1] = step_idxs[:split_idx].clone()
            else:
                step_idxs[1:] = step_idxs[:-1].clone()
            step_idxs[0] = split_mesh_idx

            # Place C quadrature points within each selected step
            nodes = self._compute_nodes(mesh[step_idxs], mesh[step_idxs + 1])

            # Flatten [N, C, T] -> [N*C, T] for batch evaluation, then reshape back
            nodes_flat = torch.flatten(nodes, start_dim=0, end_dim=-2)
            nodes_flat = nodes_flat[len(split_nodes) :]
            num_eval_nodes = len(nodes_flat)

            # One batch of up to max_batch new evals per call. After
            # completing the carry-over panel (num_remaining_split_nodes
            # evals), the rest splits into full new panels plus a partial
            # residual; if num_eval_nodes < max_batch the layout's tail
            # already ends cleanly, so the residual is zero.
            num_nodes_to_eval = min(
                max_mesh_steps * self.C + num_remaining_split_nodes,
                num_eval_nodes,
            )

        # The last batch may run past num_nodes_to_eval; that overshoot is the
        # residual carried to the next call.
        f_evals, tracked_lists, num_nodes_evaluated = self._evaluate_f_in_batches(
            f, f_args, nodes_flat, num_nodes_to_eval, max_batch
        )
        num_residual_nodes = num_nodes_evaluated - num_nodes_to_eval
        # Get the residual evaluations of the last mesh step
        if num_residual_nodes == 0:
            residual_f_evals = None
            residual_nodes = None
            residual_tracked = None
            residual_mesh_idx = None
        else:
            residual_nodes = nodes_flat[-self.C : -self.C + num_residual_nodes]
            nodes_flat = nodes_flat[: -self.C]
            residual_f_evals = f_evals[-1][-num_residual_nodes:]
            f_evals[-1] = f_evals[-1][:-num_residual_nodes]
            residual_tracked = None
            if tracked_lists is not None:
                residual_tracked = [
                    tl[-1][-num_residual_nodes:].detach() for tl in tracked_lists
                ]
                for tl in tracked_lists:
                    tl[-1] = tl[-1][:-num_residual_nodes]
            # Store the residual panel's barrier coordinate, not its
            # integer index — see the note at the top of this method.
            residual_mesh_idx = mesh[step_idxs[-1]].clone()
            step_idxs = step_idxs[:-1]

        # Combine split evaluations and nodes
        if split_mesh_idx is not None:
            nodes_flat = torch.concatenate([split_nodes, nodes_flat], dim=0)
            f_evals = torch.concatenate([split_f_evals, *f_evals], dim=0)
        else:
            f_evals = torch.concatenate(f_evals, dim=0)

        # Combine tracked variables the same way (prepending the carried split).
        tracked_combined = None
        if tracked_lists is not None:
            tracked_combined = []
            for k, tl in enumerate(tracked_lists):
                if split_mesh_idx is not None:
                    tracked_combined.append(
                        torch.concatenate([split_tracked[k], *tl], dim=0)
                    )
                else:
                    tracked_combined.append(torch.concatenate(tl, dim=0))

        # Reshape and combine outputs
        nodes = torch.reshape(nodes_flat, (-1, self.C, nodes_flat.shape[-1]))
        f_evals = torch.reshape(f_evals, (-1, self.C, f_evals.shape[-1]))
        if tracked_combined is not None:
            tracked_combined = [
                tv.reshape(-1, self.C, *tv.shape[1:]) for tv in tracked_combined
            ]

        # Path B may have laid out panels with the residual panel first
        # regardless of its position in time order — fine for the
        # split-prefix bookkeeping above, but the caller's
        # _adaptively_increase_mesh requires step_idxs sorted ascending
        # (its barrier-insertion offset scan walks left-to-right). Sort
        # step_idxs and permute the per-panel outputs to match.
        if split_mesh_idx is not None and len(step_idxs) > 1:
            sort_perm = torch.argsort(step_idxs)
            step_idxs = step_idxs[sort_perm]
            nodes = nodes[sort_perm]
            f_evals = f_evals[sort_perm]
            if tracked_combined is not None:
                tracked_combined = [tv[sort_perm] for tv in tracked_combined]

        tracked_out = (
            tuple(tv.detach() for tv in tracked_combined)
            if tracked_combined is not None
            else None
        )
        split_node_state = (
            residual_nodes,
            residual_f_evals,
            residual_tracked,
            residual_mesh_idx,
        )

        return nodes, f_evals, tracked_out, step_idxs, split_node_state

    def _sort_evals_into_mesh(
        self, take_gradient, nodes_flat, y_step_eval, y_step_bucket
    ):
        if take_gradient:
            return self._sort_evals_into_mesh_full_nodes(
                nodes_flat, y_step_eval, y_step_bucket
            )
        else:
            return self._sort_evals_into_mesh_full_nodes(
                nodes_flat, y_step_eval, y_step_bucket
            )

    def _sort_evals_into_mesh_full_nodes(self, nodes_flat, y_step_eval, y_step_bucket):
        assert len(nodes_flat) % self.C == 0
        N = len(nodes_flat) // self.C
        y_step_eval = torch.reshape(y_step_eval, (N, self.C, -1))
        nodes = torch.reshape(nodes_flat, (N, self.C, -1))
        return nodes, y_step_eval, y_step_bucket

    def _prune_excess_mesh(
        self, nodes, mesh_quadratures, mesh_quadrature_errors, error_ratios_2steps
    ):
        """
        Merge pairs of neighboring steps whose merged step is predicted to pass.

        Pair i (steps i and i+1) is merged when its summed error ratio
        ``error_ratios_2steps[i] < remove_cut / 2^(error_exponent - 1)``, i.e.
        when the merged step's predicted error ratio is below ``remove_cut``
        (derivation in the comment below). Of several adjacent qualifying
        pairs, ``_rec_remove`` keeps every other one, so no step is merged
        twice; one call merges at most one level. The merge itself is
        ``_merge_excess_nodes`` (uniform or variable sampling).

        Args:
            nodes: Per-step quadrature point positions. Shape: [N, C, T].
            mesh_quadratures: Per-step integral contributions. Shape: [N, D].
            mesh_quadrature_errors: Per-step error estimates. Shape: [N, D].
            error_ratios_2steps: Summed error ratio of each pair of neighboring
                steps, indexed by the pair's first step. Shape: [N-1].

        Returns:
            Tuple ``(nodes, mesh_quadratures, mesh_quadrature_errors)`` with
            each merged pair replaced by one step whose contribution and error
            are the pair's sums. Shapes: [N-R, C, T], [N-R, D], [N-R, D] for R
            merged pairs.
        """

        if len(error_ratios_2steps) == 0:
            return nodes, mesh_quadratures, mesh_quadrature_errors
        # Merge cutoff. error_ratios_2steps is the SUM of the two steps' error
        # ratios, S = (e_i + e_{i+1}) / tol; the merged step is never evaluated.
        # With e(h) ~ C F h^k for a step of width h (k = error_exponent, from the
        # Taylor remainder of the estimate's less accurate rule), each half has
        # ratio ~ S/2, so the merged step has ratio ~ 2^k S/2 = 2^(k-1) S.
        # Requiring that predicted ratio to stay below remove_cut gives
        # S < remove_cut / 2^(k-1). Assumes steps small enough that the leading
        # Taylor term dominates; on coarse steps the growth can be larger. When
        # the estimate is round-off (high k, tight tolerance, float32) it does
        # not grow as h^k, so the cut is conservative and pairs rarely merge.
        merge_cut = self.remove_cut / 2 ** (self.method.error_exponent - 1)
        # Since error ratios encompasses 2 RK steps each neighboring element shares
        # a step, we cannot remove that same step twice and therefore remove the
        # first in pair of steps that it appears in
        ratio_idxs_cut = torch.where(self._rec_remove(error_ratios_2steps < merge_cut))[
            0
        ]  # Index for first interval of 2
        assert not torch.any(ratio_idxs_cut[:-1] + 1 == ratio_idxs_cut[1:])

        if len(ratio_idxs_cut) == 0:
            return nodes, mesh_quadratures, mesh_quadrature_errors

        return self._merge_excess_nodes(
            nodes, mesh_quadratures, mesh_quadrature_errors, ratio_idxs_cut
        )

    @contextlib.contextmanager
    def _integration_on_device(self, device: torch.device):
        """
        Temporarily run integration-device-bound operations on ``device``.

        ``_get_optimal_mesh`` (and the subclass node helpers it calls) allocate
        on ``self.device`` and read the method tableau, which lives on
        ``self.device``. To evaluate the optimal-mesh computation on
        ``result_device`` -- so the large per-step record tensors never have to
        be copied back to the integration device -- this context manager swaps
        ``self.device`` and moves the method tableau to ``device`` for the
        duration of the block, restoring both on exit. A no-op when ``device``
        already equals ``self.device``.

        Args:
            device: Device to run on for the duration of the block.
        """
        if device == self.device:
            yield
            return
        original_device = self.device
        self.device = device
        self.method.to_device(device)
        try:
            yield
        finally:
            self.device = original_device
            self.method.to_device(original_device)

    def _get_optimal_mesh(
        self,
        nodes: torch.Tensor,
        mesh_quadratures: torch.Tensor,
        mesh_quadrature_errors: torch.Tensor,
        integral: torch.Tensor,
        mesh: torch.Tensor,
    ) -> torch.Tensor:
        """
        Compute an optimized mesh from the converged integration results.

        After the integration loop converges, this method produces a refined
        mesh that can be reused for subsequent integrations of the same function.
        It does two things:
        1. Prunes: merges consecutive step pairs whose merged step is
           predicted to have an error ratio below remove_cut
           (``_prune_excess_mesh``).
        2. Adds: inserts midpoints for steps whose error ratio against the
           final integral is still >= 1. A merged step carries the pair's
           summed error, so its ratio is the pair's (below the merge cutoff,
           < 1) unless the rounding floor sets the tolerance (see
           ``_error_ratios_norm``): this does not split a merged step, and it
           is not a check of the merge prediction. Steps fail here only when
           no re-check ran against the final integral (``take_gradient=True``,
           or a fixed ``error_integral_reference``) or when
           ``max_adaptive_splits`` stopped their refinement.

        This produces a mesh tailored to the difficulty of the integrand at
        different positions along the integration domain.

        All inputs must share a device; the returned mesh lands on that same
        device. (The caller runs this on ``result_device`` via
        ``_integration_on_device`` and moves the result back to the integration
        device afterward.)

        Args:
            nodes: Per-step quadrature point positions. Shape: [N, C, T].
            mesh_quadratures: Per-step integral contributions. Shape: [N, D].
            mesh_quadrature_errors: Per-step error estimates. Shape: [N, D].
            integral: Converged total integral estimate. Shape: [D].
            mesh: Current barrier positions. Shape: [M, T].

        Returns:
            Optimized barrier positions. Shape: [M_opt, T].
        """
        # Prune steps with excess accuracy (over-resolved regions)
        _, error_ratios_2steps, _ = self._compute_error_ratios(
            mesh_quadrature_errors=mesh_quadrature_errors,
            mesh_quadratures=mesh_quadratures,
            integral=integral.detach(),
        )
        nodes_pruned, mesh_quadratures_pruned, mesh_quadrature_errors_pruned = (
            self._prune_excess_mesh(
                nodes,
                mesh_quadratures,
                mesh_quadrature_errors,
                error_ratios_2steps,
            )
        )
        mesh_pruned = torch.concatenate(
            [nodes_pruned[:, 0, :], mesh[-1].unsqueeze(0)], dim=0
        )

        # Add new t steps using converged integral value
        error_ratios, error_ratios_2steps, error_ratios_per_dim = (
            self._compute_error_ratios(
                mesh_quadrature_errors=mesh_quadrature_errors_pruned,
                mesh_quadratures=mesh_quadratures_pruned,
                integral=integral.detach(),
            )
        )
        keep_mask, remove_mask = self._accept_reject_masks(
            error_ratios, error_ratios_per_dim
        )
        adaptive_step = self._adaptively_increase_mesh(
            method_output=None,
            error_ratios=error_ratios,
            y_step_eval=None,
            nodes=None,
            mesh=mesh_pruned,
            mesh_idxs=torch.arange(len(mesh_pruned) - 1, device=mesh_pruned.device),
            mesh_trackers=torch.zeros(
                len(mesh_pruned), dtype=bool, device=mesh_pruned.device
            ),
            keep_mask=keep_mask,
            remove_mask=remove_mask,
        )
        _, _, _, _, mesh_optimal, _, _, _, _ = adaptive_step

        return mesh_optimal

    def _rec_remove(self, mask: torch.Tensor) -> torch.Tensor:
        """
        Ensure no two adjacent True values exist in a boolean mask.

        When merging step pairs, two adjacent steps cannot both be merged
        (they share a boundary). Conflicts are resolved left to right: the
        first flagged entry of a run is kept and its neighbor un-flagged, so a
        run of Trues alternates (TTT -> TFT, TTTT -> TFTF).

        Example: [True, True, False, True] -> [True, False, False, True]

        Args:
            mask: Boolean mask where True = flagged for removal. Shape: [N].

        Returns:
            Modified mask with no adjacent True values. Shape: [N].
        """

        # Iterative form of what was a tail recursion: each pass un-flags the
        # second element of an adjacent True pair and rebuilds the mask, looping
        # until no adjacent pair remains. The recursive version overflowed
        # Python's stack on the large, finely-refined meshes the accepted-panel
        # re-check can produce; this loop is behaviourally identical (the prior
        # body's only recursive call was the final `return self._rec_remove(...)`)
        # but has no depth limit.
        while True:
            mask2 = mask[:-1] * mask[1:]
            if not torch.any(mask2):
                return mask

            # Must keep the first integration step
            if mask2[0]:
                mask[1] = False

            # Mask is too small to remove points
            if len(mask) <= 2:
                return mask

            mask = torch.concatenate(
                [mask[:2], mask2[1:] * mask[:-2] + (~mask2[1:]) * mask[2:]]
            )

    def _setup_integral_bounds(self, mesh, mesh_init, mesh_final):
        if mesh is not None:
            assert len(mesh.shape) == 2
            mesh = mesh.to(self.dtype).to(self.device)
            if mesh_init is not None:
                mesh_init = mesh_init.to(self.dtype).to(self.device)
                assert torch.allclose(
                    mesh[0], mesh_init, atol=self.atol_assert, rtol=self.rtol_assert
                )
            if mesh_final is not None:
                mesh_final = mesh_final.to(self.dtype).to(self.device)
                assert torch.allclose(
                    mesh[-1], mesh_final, atol=self.atol_assert, rtol=self.rtol_assert
                )
            mesh_init = mesh[0]
            mesh_final = mesh[-1]
            assert mesh_init < mesh_final, (
                "Integrator requires mesh_init < mesh_final, consider switching them and multiplying the integral by -1. Please also consider effects to your f."
            )
        else:
            mesh_init = self.init_mesh_init if mesh_init is None else mesh_init
            mesh_final = self.init_mesh_final if mesh_final is None else mesh_final
        mesh_init = mesh_init.to(self.dtype).to(self.device)
        mesh_final = mesh_final.to(self.dtype).to(self.device)

        assert mesh_init < mesh_final, (
            "Integrator requires mesh_init < mesh_final, consider switching them and multiplying the integral by -1. Please also consider the effects your loss function if one is provided."
        )
        return mesh_init, mesh_final

    def _setup_initial_mesh(
        self,
        mesh,
        mesh_init,
        mesh_final,
        same_f,
        random_initial_mesh,
        N_init_steps,
    ):
        # mesh_is_given: the starting mesh came from outside (the stored mesh
        # or the caller's), not freshly generated; the max_path_change check
        # runs only then.
        if same_f and self.mesh_previous is not None:
            # The stored mesh replaces the caller's mesh.
            mesh_is_given = True
            # Filter cached barriers to within the new [mesh_init, mesh_final]
            # box, comparing every time dimension (min/max handles either
            # integration direction). For 1-D forward integration this is the
            # same set as the previous coordinate-0 range test.
            lo = torch.minimum(mesh_init, mesh_final)
            hi = torch.maximum(mesh_init, mesh_final)
            mask = torch.all(
                (self.mesh_previous >= lo) & (self.mesh_previous <= hi), dim=-1
            )
            mesh = self.mesh_previous[mask]
            # Ensure the warm-started mesh starts at mesh_init.
            if len(mesh) == 0 or not torch.all(mesh[0] == mesh_init):
                mesh = torch.concatenate([mesh_init.unsqueeze(0), mesh], dim=0)
            # Ensure the warm-started mesh ends at mesh_final.
            # (Bug B1 fix: previously concatenated mesh_init here, producing a
            # non-monotone mesh whenever the cached endpoint did not match
            # the new mesh_final.)
            if not torch.all(mesh[-1] == mesh_final):
                mesh = torch.concatenate([mesh, mesh_final.unsqueeze(0)], dim=0)
        elif mesh is not None:
            # The user-provided mesh enters the loop here; _setup_integral_bounds
            # only moved a local copy for its assertions, so coerce it onto the
            # solver's device (DistributedEnvironment owns the device; inputs are
            # moved to it). Without this, the loop indexes a CPU mesh with
            # device-side indices and crashes on GPU.
            mesh = mesh.to(self.dtype).to(self.device)
            mesh_is_given = True
        else:
            mesh_is_given = False
            # Generate a fresh initial mesh of barriers across [mesh_init, mesh_final].
            # Layout: sqrt(N_init_steps) evenly-spaced top-level segments, each
            # subdivided into sqrt(N_init_steps)+1 sub-barriers. The total
            # barrier count is ~N_init_steps. Sub-barriers are placed
            # randomly (default) or uniformly within each segment.
            N_even_t = torch.sqrt(torch.tensor(N_init_steps, dtype=torch.float)).to(
                torch.int
            )
            dt = (mesh_final - mesh_init) / N_even_t
            # Top-level segment starts: mesh_init + k*dt, points along the
            # mesh_init -> mesh_final line (dt is the [T] segment vector, so
            # this is correct for any time dimensionality).
            mesh = (
                mesh_init
                + dt * torch.arange(N_even_t, device=self.device)[:, None, None]
            )

            n_sub = N_even_t + 1  # sub-barriers per segment
            if random_initial_mesh:
                # Random sub-barrier offsets within each segment, sorted.
                # Default. Random offsets break alignment between the
                # mesh and any uniformly-spaced features of the
                # integrand (e.g. zeros of a sinusoid, polynomial
                # extrema): on such integrands, a uniform mesh can
                # produce step errors the adaptive controller cannot
                # recover from. For deterministic reproducibility,
                # call ``torch.manual_seed`` before integrate().
                random_ts = dt * torch.rand((N_even_t, n_sub, 1), device=self.device)
                random_ts = torch.sort(random_ts, dim=1)[0]
                mesh = mesh + random_ts
            else:
                # Deterministic uniformly-spaced sub-barriers within
                # each segment. Available for debugging and for
                # integrands separately verified safe against uniform-
                # mesh aliasing; not the default because uniform meshes
                # fail to integrate certain test cases due to feature
                # alignment.
                #
                # Sub-barrier offsets are in [0, dt) — excluding dt to
                # avoid duplicating the top-level segment boundary
                # (segment k's last sub-barrier would otherwise
                # coincide with segment k+1's first sub-barrier and
                # the strict monotonicity assertion below would fail).
                # Fractions in [0, 1) along the segment vector dt (shape [T]),
                # so sub-barriers stay on the line for any T. For T == 1 this is
                # identical to the previous dt * arange(n_sub) / n_sub.
                fractions = (
                    torch.arange(n_sub, dtype=self.dtype, device=self.device) / n_sub
                )
                offsets = fractions[:, None] * dt[None, :]  # [n_sub, T]
                mesh = mesh + offsets[None]
            # Enforce exact start and end points
            mesh[0] += mesh_init - mesh[0, 0]
            mesh[-1] += mesh_final - mesh[-1, -1]
            # Flatten segments into a single sorted barrier array
            mesh = torch.flatten(mesh, start_dim=0, end_dim=1)
            mesh[0] = mesh_init
            mesh[-1] = mesh_final
            # Any-T: consecutive barriers are distinct (no zero-length panels).
            assert torch.all(torch.any(mesh[1:] != mesh[:-1], dim=-1))
            # 1-D: additionally strictly increasing.
            if mesh.shape[-1] == 1:
                assert torch.all(mesh[1:] - mesh[:-1] > 0)
        mesh_trackers = torch.ones(len(mesh), device=self.device).to(bool)
        mesh_trackers[-1] = False  # mesh_final cannot be a step starting point
        mesh_indices = self._get_mesh_indices(mesh)

        return mesh, mesh_trackers, mesh_indices, mesh_is_given

    def _get_mesh_indices(self, mesh):
        # Map each barrier to its position in the ordered mesh. Keyed on the
        # full barrier coordinate as a hashable tuple (not the tensor object,
        # which hashes by identity and so cannot be looked up by value) so the
        # recording code can recover a panel's order from its left barrier for
        # any time dimensionality T.
        # Single device->host transfer of the whole [M, T] mesh, then build the
        # tuple keys in pure Python (one host sync instead of one per barrier).
        return {tuple(row): idx for idx, row in enumerate(mesh.tolist())}

    # -------------------------------------------------------------------------------- #
    #                           ADAPTIVE ERROR CALCULATIONS                            #
    # -------------------------------------------------------------------------------- #

    def _reduce_norm(self, x: torch.Tensor, error_norm=None) -> torch.Tensor:
        """
        Reduce the last (output dimension D) axis of ``x`` to one scalar per
        step using the configured ``error_norm``.

        Mirrors the ``norm`` argument of ``scipy.integrate.quad_vec``:

          - ``"2"``   → L2 norm ``sqrt(sum(x**2))``     (scipy ``np.linalg.norm``)
          - ``"max"`` → L-infinity norm ``max(|x|)``    (scipy ``_max_norm``)
          - ``"rms"`` → root-mean-square ``sqrt(mean(x**2))`` (padaquad legacy)
          - callable  → ``error_norm(x)`` reducing the last axis

        For 1D integrands every option equals ``torch.abs(x)``.

        Args:
            x: Per-dimension values. Shape: [..., D].
            error_norm: Override for the configured norm (defaults to
                ``self.error_norm``). ``"failure_fraction"`` is not a norm and
                must not be passed here.

        Returns:
            Reduced values, shape [...].
        """
        error_norm = self.error_norm if error_norm is None else error_norm
        if callable(error_norm):
            return error_norm(x)
        if error_norm == "2":
            return torch.sqrt(torch.sum(x**2, dim=-1))
        if error_norm == "max":
            return torch.amax(torch.abs(x), dim=-1)
        if error_norm == "rms":
            return torch.sqrt(torch.mean(x**2, dim=-1))
        raise ValueError(f"_reduce_norm cannot reduce with error_norm={error_norm!r}")

    def _round_floor(self, mesh_quadratures: torch.Tensor) -> torch.Tensor:
        """
        Machine-precision floor on the per-element error estimate.

        Modeled on ``scipy.integrate.quad_vec``'s rounding guard: it keeps the
        controller from splitting a panel forever chasing an error that is
        already at/below floating-point round-off. scipy uses
        ``round_err = norm(50*eps*h*s_k_abs)`` with ``h*s_k_abs`` the panel's
        quadrature of ``|f|``, and raises the error estimate to it
        (``_quadrature_gk`` in ``scipy/integrate/_quad_vec.py``, scipy 1.17).
        Here the floor is ``50*eps*|s_k|`` with ``s_k`` the panel's signed
        contribution (``mesh_quadratures``), smaller than scipy's on panels
        where f changes sign, and the error-ratio helpers use it as a lower
        bound on the tolerance.

        Args:
            mesh_quadratures: Per-step integral contributions. Shape: [N, D].

        Returns:
            Per-element rounding floor. Shape: [N, D].
        """
        eps = torch.finfo(self.dtype).eps
        return 50.0 * eps * torch.abs(mesh_quadratures)

    def _compute_error_ratios(
        self,
        mesh_quadrature_errors,
        mesh_quadratures=None,
        cum_mesh_quadratures=None,
        integral=None,
    ):
        """
        Compute per-step error ratios, dispatching on ``self.error_norm``.

        The error estimate is the difference between the order-p method and the
        embedded order-(p-1) method. How the D output dimensions are turned into
        a single accept/reject quantity depends on the scheme:

          - Norm family (``"2"``/``"max"``/``"rms"``/callable): scipy-style
            reduce-then-compare, in ``_error_ratios_norm``.
          - ``"failure_fraction"``: per-component comparison, in
            ``_error_ratios_failure_fraction``.

        The absolute-vs-cumulative-mode axis (``use_absolute_error_ratio``) is
        orthogonal and handled inside each family helper (it only changes the
        tolerance denominator).

        Args:
            mesh_quadrature_errors (Tensor): Per-step error estimates. [N, D].
            mesh_quadratures (Tensor): Per-step integral contributions (``s_k``),
                used for the rounding floor and (in cumulative mode) the
                cumulative sum. [N, D]. May be None.
            cum_mesh_quadratures (Tensor): Pre-computed cumulative sum [N, D]
                (cumulative mode only).
            integral (Tensor): Current total integral estimate [D]
                (absolute mode only).

        Returns:
            Tuple ``(error_ratios, error_ratios_2steps, error_ratios_per_dim)``:
                - error_ratios: per-step accept/reject quantity [N] (reduced
                  ratio for the norm family; failure fraction for
                  ``"failure_fraction"``).
                - error_ratios_2steps: per-pair merge/prune indicator [N-1].
                - error_ratios_per_dim: per-element ratio [N, D] for
                  ``"failure_fraction"`` (so non-finite panels can be detected),
                  else None.
        """
        abs_err = torch.abs(mesh_quadrature_errors)
        if (not callable(self.error_norm)) and self.error_norm == "failure_fraction":
            return self._error_ratios_failure_fraction(
                abs_err, mesh_quadratures, cum_mesh_quadratures, integral
            )
        return self._error_ratios_norm(
            abs_err, mesh_quadratures, cum_mesh_quadratures, integral
        )

    def _error_ratios_norm(
        self, abs_err, mesh_quadratures, cum_mesh_quadratures, integral
    ):
        """
        Norm family (reduce-then-compare), matching ``scipy.integrate.quad_vec``.

        The error vector is reduced to a scalar with ``self.error_norm`` and
        compared to a single tolerance built from the *same* norm of the
        integral::

            error_ratio[k] = R(|e[k]|) / max(atol, rtol * R(I))      (absolute)
            error_ratio[k] = R(|e[k]|) / max(atol, rtol * R(cum[k])) (cumulative)

        where ``R`` is the configured norm and ``cum[k]`` the running integral
        through step k (as ``scipy.integrate.quad_vec``, which uses
        ``max(epsabs, epsrel*norm(I))``). A panel is accepted when
        ``error_ratio < 1`` (see ``_accept_reject_masks``).

        The pair ratio ``error_ratio_2steps[k] = R(|e[k]| + |e[k+1]|) /
        tol_2steps[k]`` (used only to merge steps, ``_prune_excess_mesh``)
        uses the tolerance the merged step would get: the same ``tol`` in
        absolute mode, step k+1's (the merged step's right end) in cumulative
        mode. Its rounding floor is ``R(floor[k]) + R(floor[k+1])``, at least
        the merged step's own floor (equal when both contributions have the
        same sign).

        The rounding floor enters as a *lower bound on the tolerance*
        (``effective_tol = max(tol, R(round_floor))``), not as an inflation of
        the error. This realizes scipy's "stop once rounding-limited" behavior:
        a panel whose error is already at/below round-off has ``error_ratio <=
        ~1`` and is accepted instead of being split forever -- important when
        the requested tolerance is below what the working dtype can resolve.

        Shapes: abs_err [N, D]; integral [D]; cum [N, D]; returns [N], [N-1], None.
        """
        err = self._reduce_norm(abs_err)
        # Tolerances follow the inputs' device so this runs on the integration
        # device in the loop and on result_device in the post-convergence pass.
        atol = self.atol.to(abs_err.device)
        rtol = self.rtol.to(abs_err.device)
        floor = (
            self._reduce_norm(self._round_floor(mesh_quadratures))
            if mesh_quadratures is not None
            else None
        )

        if self.use_absolute_error_ratio:
            error_tol = torch.maximum(atol, rtol * self._reduce_norm(integral))
            error_tol_2steps = error_tol
        else:
            if cum_mesh_quadratures is not None:
                cum_steps = cum_mesh_quadratures
            elif mesh_quadratures is not None:
                cum_steps = torch.cumsum(mesh_quadratures, dim=0)
            else:
                raise ValueError("Must give mesh_quadratures or cum_mesh_quadratures")
            error_tol = torch.maximum(
                atol, rtol * self._reduce_norm(torch.abs(cum_steps))
            )
            # A merged pair (i, i+1) ends where step i+1 ends, so it is judged
            # against step i+1's cumulative tolerance (not the larger of the
            # two, which under-predicts the merged ratio when |cum| falls).
            error_tol_2steps = error_tol[1:]

        if floor is not None:
            # Broadcasts a scalar (absolute mode) or per-step (cumulative) tol.
            error_tol = torch.maximum(error_tol, floor)
            error_tol_2steps = torch.maximum(error_tol_2steps, floor[:-1] + floor[1:])

        error_ratio = err / error_tol
        err_2steps = self._reduce_norm(abs_err[:-1] + abs_err[1:])
        error_ratio_2steps = err_2steps / error_tol_2steps
        return error_ratio, error_ratio_2steps, None

    def _error_ratios_failure_fraction(
        self, abs_err, mesh_quadratures, cum_mesh_quadratures, integral
    ):
        """
        Per-component family: each output element keeps its own relative
        tolerance, and a panel's accept/reject quantity is the *fraction* of
        elements whose ratio exceeds 1::

            r[k, d] = |e[k, d]| / (atol + rtol * |I[d]|)        (absolute)
            r[k, d] = |e[k, d]| / (atol + rtol * |cum[k, d]|)   (cumulative)
            failure_fraction[k] = mean_d( r[k, d] >= 1 )

        A panel is accepted when ``failure_fraction <= mesh_failure_tolerance``
        (applied in ``_accept_reject_masks``). The raw per-element ratio is also
        returned so non-finite (NaN/Inf) panels can be detected downstream.
        The pair ratio (used only to merge steps) is the max over elements of
        ``(|e[k, d]| + |e[k+1, d]|) / tol_2steps[k, d]``, with the merged
        step's tolerance as in ``_error_ratios_norm``.

        The rounding floor enters per element as a lower bound on the tolerance
        (``effective_tol = max(tol, round_floor)``), so an element whose error is
        already at/below round-off does not count as a failure and the panel is
        not split chasing sub-precision accuracy.

        Shapes: abs_err [N, D]; integral [D]; cum [N, D];
        returns failure_fraction [N], error_ratio_2steps [N-1], ratio [N, D].
        """
        # Tolerances follow the inputs' device (see _error_ratios_norm).
        atol = self.atol.to(abs_err.device)
        rtol = self.rtol.to(abs_err.device)
        if self.use_absolute_error_ratio:
            error_tol = atol + rtol * torch.abs(integral)  # [D]
            error_tol_2steps = error_tol
        else:
            if cum_mesh_quadratures is not None:
                cum_steps = cum_mesh_quadratures
            elif mesh_quadratures is not None:
                cum_steps = torch.cumsum(mesh_quadratures, dim=0)
            else:
                raise ValueError("Must give mesh_quadratures or cum_mesh_quadratures")
            error_tol = atol + rtol * torch.abs(cum_steps)  # [N, D]
            # Merged pair's tolerance: step i+1's (see _error_ratios_norm).
            error_tol_2steps = error_tol[1:]

        if mesh_quadratures is not None:
            floor = self._round_floor(mesh_quadratures)  # [N, D]
            error_tol = torch.maximum(error_tol * torch.ones_like(floor), floor)
            error_tol_2steps = torch.maximum(
                error_tol_2steps * torch.ones_like(floor[:-1]),
                floor[:-1] + floor[1:],
            )

        ratio = abs_err / error_tol  # [N, D]
        finite = torch.isfinite(ratio)
        failed = (ratio >= 1.0) & finite
        failure_fraction = failed.to(self.dtype).mean(dim=-1)  # [N]

        # Merge/prune indicator: conservative max-norm of the combined 2-step
        # ratio (compared against remove_cut < 1, so a magnitude is needed here
        # rather than a fraction).
        ratio_2steps = (abs_err[:-1] + abs_err[1:]) / error_tol_2steps
        error_ratio_2steps = torch.amax(ratio_2steps, dim=-1)  # [N-1]
        return failure_fraction, error_ratio_2steps, ratio

    def _accept_reject_masks(self, error_ratios, error_ratios_per_dim):
        """
        Turn per-step error quantities into accept (keep) / reject (split) masks.

        Both families accept a panel whose error is non-finite (NaN/Inf): a
        midpoint split reuses the boundary node, so it can never reduce a
        non-finite value, and routing it to the split branch would loop forever.

          - ``"failure_fraction"``: keep when the failure fraction is
            ``<= mesh_failure_tolerance`` (plus a float-noise epsilon), or when
            any element of the panel is non-finite.
          - Norm family: keep when ``error_ratios < 1`` or ``error_ratios`` is
            non-finite.

        Args:
            error_ratios: Per-step accept/reject quantity. Shape: [N].
            error_ratios_per_dim: Per-element ratio [N, D] for the failure
                family (used for the non-finite check), else None.

        Returns:
            Tuple ``(keep_mask, remove_mask)``, each boolean shape [N].
        """
        if (not callable(self.error_norm)) and self.error_norm == "failure_fraction":
            panel_nonfinite = (~torch.isfinite(error_ratios_per_dim)).any(dim=-1)
            eps_frac = 8.0 * torch.finfo(self.dtype).eps
            keep_mask = (
                error_ratios <= self.mesh_failure_tolerance + eps_frac
            ) | panel_nonfinite
        else:
            keep_mask = (error_ratios < 1.0) | ~torch.isfinite(error_ratios)
        return keep_mask, ~keep_mask

    # -------------------------------------------------------------------------------- #
    #                                    RECORDING                                     #
    # -------------------------------------------------------------------------------- #

    # Record dict keys that are cumulative scalars (sum across batches),
    # not per-step arrays that need re-sorting.
    _RECORD_SCALAR_KEYS = ("integral", "integral_error", "loss")

    # Record dict keys that must stay on the integration device because they are
    # read back during the loop (running integral and the per-step quadratures
    # merged + cumsum'd for the error ratios; the per-step errors are re-checked
    # against the drifting tolerance every iteration -- see the accepted-panel
    # re-check in ``integrate``). Everything else is detached and moved to
    # ``result_device`` as it is recorded, to keep the large per-step tensors
    # (nodes, y, tracked_variables, ...) off the GPU.
    _DEVICE_RESIDENT_KEYS = ("integral", "mesh_quadratures", "mesh_quadrature_errors")

    # Cumulative scalar keys whose final output stays on the integration device.
    # The integral and its error estimate are the primary answer, so they remain
    # on the compute device even when the bulky per-step arrays are offloaded to
    # ``result_device``. (``mesh_quadratures`` is resident only for loop reads
    # and is moved to ``result_device`` after convergence.)
    _RESULT_INTEGRATION_KEYS = ("integral", "integral_error")

    def _mesh_order(self, barriers: torch.Tensor, mesh_indices: dict) -> torch.Tensor:
        """
        Look up the mesh-order index of each panel from its left barrier.

        A panel's left barrier is ``nodes[:, 0, :]`` -- the first quadrature
        node, which equals the left mesh barrier bit-for-bit because every
        method's tableau has ``c[0] == 0`` (so ``mesh_left + 0*(...) ==
        mesh_left`` exactly). ``mesh_indices`` maps each barrier (keyed on its
        full coordinate tuple) to its position in the ordered mesh, so this
        gives a robust total order for any time dimensionality T -- no single
        coordinate is compared.

        Args:
            barriers: Per-panel left barriers. Shape: [N, T].
            mesh_indices: ``{tuple(barrier): position}`` from
                ``_get_mesh_indices`` for the current mesh.

        Returns:
            Per-panel mesh positions. Shape: [N], dtype long.
        """
        # Build keys from a SINGLE device->host transfer of the whole [N, T]
        # block (barriers.tolist()), then look each up in pure Python. Avoids
        # one host sync per panel, which matters on GPU for fine meshes.
        return torch.tensor(
            [mesh_indices[tuple(row)] for row in barriers.tolist()],
            dtype=torch.long,
            device=self.device,
        )

    def _merge_positions(
        self, rec_order: torch.Tensor, new_order: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """
        Compute merged-array positions from two mesh-order arrays.

        Given the mesh-order indices of the existing record entries and of the
        new entries, return where each goes in the combined, mesh-ordered
        array. The mesh indices are globally unique integers, so the merge is a
        rank computation -- no coordinate comparison is involved. Replaces the
        coordinate-based binary-search placement used previously.

        Args:
            rec_order: Mesh positions of existing record entries. Shape: [N_record].
            new_order: Mesh positions of new entries. Shape: [N_result].

        Returns:
            Tuple of (idxs_keep, idxs_input): positions in the merged array for
            the existing and the new entries respectively (consumed by
            ``_insert_sorted_results``).
        """
        orders = torch.cat([rec_order, new_order])
        positions = torch.empty(len(orders), dtype=torch.long, device=self.device)
        positions[torch.argsort(orders)] = torch.arange(len(orders), device=self.device)
        n = len(rec_order)
        return positions[:n], positions[n:]

    def _insert_sorted_results(
        self,
        record: torch.Tensor,
        record_idxs: torch.Tensor,
        result: torch.Tensor,
        result_idxs: torch.Tensor,
    ) -> torch.Tensor:
        """
        Merge new results into an existing record at pre-computed sorted positions.

        Creates a new tensor large enough for both, places existing entries at
        record_idxs and new entries at result_idxs.

        Args:
            record: Existing recorded data. Shape: [N_record, ...].
            record_idxs: Positions for existing data in merged array. Shape: [N_record].
            result: New data to insert. Shape: [N_result, ...].
            result_idxs: Positions for new data in merged array. Shape: [N_result].

        Returns:
            Merged tensor with both record and result entries in sorted order.
            Shape: [N_record + N_result, ...].
        """
        add_shape = (len(record) + len(result), *record.shape[1:])
        old_record = record.clone()
        # Index tensors come from _merge_positions on the integration device;
        # move them to the record's device so a record living on result_device
        # (CPU) merges with CPU indices while a GPU-resident record uses GPU
        # indices. ``result`` is already placed on record.device by the caller.
        record_idxs = record_idxs.to(record.device)
        result_idxs = result_idxs.to(record.device)
        # Allocate with the input tensor's own dtype/device so this works for
        # non-float records (e.g. integer/bool tracked variables), not just
        # self.dtype. Every position is overwritten below, so zeros is safe.
        record = torch.zeros(add_shape, device=record.device, dtype=old_record.dtype)
        record[record_idxs] = old_record
        record[result_idxs] = result
        return record

    def _record_results(
        self,
        record: dict[str, torch.Tensor],
        take_gradient: bool,
        results: IntegrationResult,
        mesh_indices: dict,
        result_device: torch.device | None = None,
    ) -> dict[str, torch.Tensor]:
        """
        Add a batch of accepted step results to the running record.

        On the first batch, initializes the record dict. On subsequent batches,
        inserts new results in mesh order and accumulates the integral and loss.

        Each recorded field is placed on its target device: the keys in
        ``_DEVICE_RESIDENT_KEYS`` stay on the integration device (they are read
        back during the loop), and all other fields -- including the large
        ``nodes``/``y``/``tracked_variables`` -- are moved to ``result_device``
        so they do not accumulate on the GPU. When ``take_gradient`` is True the
        per-batch ``loss.backward()`` has already run, so tensors are detached
        before placing; when False the autograd graph is retained so the
        returned integral stays differentiable (the device move is itself a
        differentiable op).

        Args:
            record: Running record dict. Empty dict {} on the first call.
            take_gradient: If True, per-batch backward already ran and tensors
                are detached before recording; if False the graph is retained.
            results: IntegrationResult from the current accepted batch.
            mesh_indices: ``{tuple(barrier): position}`` for the current mesh,
                used to place new steps in mesh order (robust for any T).
            result_device: Device for the large/output record tensors. ``None``
                keeps everything on the integration device (no move).

        Returns:
            Updated record dict with the new results merged in. Dict keys
            match IntegrationResult field names so getattr-based merge
            below can iterate without translation.
        """
        if result_device is None:
            result_device = self.device

        def target(key):
            # Resident keys (read back in the loop) and the integration-output
            # scalars stay on the integration device; everything else goes to
            # result_device.
            if (
                key in self._DEVICE_RESIDENT_KEYS
                or key in self._RESULT_INTEGRATION_KEYS
            ):
                return self.device
            return result_device

        def place(value, key):
            # take_gradient=True does per-batch backward *before* recording, so
            # the graph is no longer needed and is detached. take_gradient=False
            # retains the full graph for a single backward through the returned
            # integral, so the grad-tracked tensor is kept (``.to`` is itself an
            # autograd op, so the device move stays differentiable).
            if take_gradient:
                value = value.detach()
            return value.to(target(key))

        if len(record) == 0:
            for key in (
                "integral",
                "nodes",
                "h",
                "y",
                "mesh_quadratures",
                "mesh_quadrature_errors",
                "integral_error",
                "error_ratios",
                "loss",
            ):
                record[key] = place(getattr(results, key), key)
            if results.tracked_variables is not None:
                # Tracked variables are already detached at evaluation time.
                record["tracked_variables"] = [
                    tv.to(result_device) for tv in results.tracked_variables
                ]
            return record

        idxs_keep, idxs_input = self._merge_positions(
            self._mesh_order(record["nodes"][:, 0, :], mesh_indices),
            self._mesh_order(results.nodes[:, 0, :].detach(), mesh_indices),
        )
        for key, value in record.items():
            if key in self._RECORD_SCALAR_KEYS:
                record[key] = value + place(getattr(results, key), key)
            elif key == "tracked_variables":
                # A list of per-variable tensors: insert each independently.
                record[key] = [
                    self._insert_sorted_results(
                        v, idxs_keep, r.to(result_device), idxs_input
                    )
                    for v, r in zip(value, results.tracked_variables, strict=True)
                ]
            else:
                record[key] = self._insert_sorted_results(
                    value,
                    idxs_keep,
                    place(getattr(results, key), key),
                    idxs_input,
                )
        # General (any-T) invariant: the record is in strictly increasing mesh
        # order after the merge.
        merged_order = self._mesh_order(record["nodes"][:, 0, :], mesh_indices)
        assert torch.all(merged_order[1:] - merged_order[:-1] > 0)
        # For 1-D time the left-node coordinate must also be strictly ascending.
        if record["nodes"].shape[-1] == 1:
            assert torch.all(record["nodes"][1:, 0, 0] - record["nodes"][:-1, 0, 0] > 0)

        return record

    def _sort_record(
        self, record: dict[str, torch.Tensor], mesh_indices: dict
    ) -> dict[str, torch.Tensor]:
        """
        Sort all per-step entries in the record by mesh order.

        The integration loop may process batches in any order, so the record
        needs to be sorted before final output. Ordering is by each panel's
        position in the mesh (its left barrier looked up in ``mesh_indices``),
        which is robust for any time dimensionality T. Scalar values (integral,
        loss) are not reordered since they are cumulative sums.

        Args:
            record: Record dict with per-step tensors.
            mesh_indices: ``{tuple(barrier): position}`` for the final mesh.

        Returns:
            Record with per-step tensors sorted by mesh position.
        """
        sorted_idxs = torch.argsort(
            self._mesh_order(record["nodes"][:, 0, :], mesh_indices), dim=0
        )
        # Per-step fields may live on different devices (result_device vs the
        # integration device), so move the index to each field's device.
        for key, value in record.items():
            if key in self._RECORD_SCALAR_KEYS:
                continue
            if key == "tracked_variables":
                record[key] = [tv[sorted_idxs.to(tv.device)] for tv in value]
            else:
                record[key] = value[sorted_idxs.to(value.device)]
        # General (any-T) invariant: strictly increasing mesh order.
        sorted_order = self._mesh_order(record["nodes"][:, 0, :], mesh_indices)
        assert torch.all(sorted_order[1:] - sorted_order[:-1] > 0)
        # For 1-D time the left-node coordinate must be strictly monotonic.
        if record["nodes"].shape[-1] == 1:
            all_ascending = torch.all(
                record["nodes"][1:, 0, 0] - record["nodes"][:-1, 0, 0] > 0
            )
            all_descending = torch.all(
                record["nodes"][1:, 0, 0] - record["nodes"][:-1, 0, 0] < 0
            )
            assert all_ascending or all_descending, (
                "Nodes are required to be either in ascending or descending order"
            )
        return record

    def _remove_failed_record_panels(
        self,
        record: dict[str, torch.Tensor],
        record_keep_mask: torch.Tensor,
        loss_fxn,
    ) -> dict[str, torch.Tensor]:
        """
        Drop recorded panels that failed the accepted-panel re-check.

        Their barriers were just bisected in the mesh (their children will be
        re-evaluated as fresh panels), so the stale entries must leave the
        record. Per-step fields are filtered by ``record_keep_mask`` and the
        cumulative scalar accumulators are rebuilt:

        - ``integral`` is rebuilt exactly: it equals the sum of the per-step
          ``mesh_quadratures``, so subtracting the removed panels' contribution
          is exact.
        - ``integral_error`` is a signed accumulated sum but the stored per-step
          errors are abs (kept abs so the optimal-mesh/merge path is unchanged),
          so the removed panels' *abs* errors are subtracted -- a bounded
          approximation of a diagnostic field.
        - ``loss`` for the default loss equals the integral, so it tracks the
          rebuilt integral; a custom ``loss_fxn`` is left as-is (its per-batch
          sum is already an approximation, and the re-check only runs with
          ``take_gradient=False`` so no per-batch backward depends on it).

        Args:
            record: Running record dict (per-step fields in mesh order).
            record_keep_mask: Boolean mask over recorded panels; True = keep.
            loss_fxn: The active loss function (to detect the default loss).

        Returns:
            The record with the failed panels removed.
        """
        removed = ~record_keep_mask
        # mesh_quadratures / mesh_quadrature_errors are device-resident, as are
        # integral / integral_error; move the mask to each tensor's device.
        quad = record["mesh_quadratures"]
        err = record["mesh_quadrature_errors"]
        removed_quad_sum = quad[removed.to(quad.device)].sum(0)
        removed_err_sum = err[removed.to(err.device)].sum(0)
        record["integral"] = record["integral"] - removed_quad_sum.to(
            record["integral"].device
        )
        record["integral_error"] = record["integral_error"] - removed_err_sum.to(
            record["integral_error"].device
        )
        for key, value in record.items():
            if key in self._RECORD_SCALAR_KEYS:
                continue
            if key == "tracked_variables":
                record[key] = [tv[record_keep_mask.to(tv.device)] for tv in value]
            else:
                record[key] = value[record_keep_mask.to(value.device)]
        # Default loss == integral, so keep it consistent with the rebuilt
        # value. Bound methods are not identity-stable (``obj.m is obj.m`` is
        # False), so compare the underlying function rather than the bound
        # method object. A custom loss_fxn is left as-is (its per-batch sum is
        # already an approximation; the re-check only runs with
        # take_gradient=False, so no per-batch backward depends on it).
        is_default_loss = (
            getattr(loss_fxn, "__func__", None) is self._integral_loss.__func__
        )
        if is_default_loss:
            # loss lives on result_device (see _record_results), integral on the
            # integration device; keep loss where the next batch's loss is added.
            record["loss"] = record["integral"].to(record["loss"].device)
        return record

    def _flatten_output(self, panel_array):
        return torch.concatenate(
            [
                panel_array[0],
                torch.flatten(panel_array[1:, 1:], start_dim=0, end_dim=1),
            ],
            dim=0,
        )
