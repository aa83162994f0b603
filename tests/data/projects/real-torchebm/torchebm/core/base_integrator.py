from abc import ABC, abstractmethod
from contextlib import nullcontext
from typing import Callable, Dict, List, Optional, Tuple

import torch
from torch import nn

from torchebm.core import TorchEBMModule


class BaseIntegrator(TorchEBMModule, ABC):
    """
    Abstract integrator that advances a sampler state according to dynamics.

    The integrator operates on a generic state dict to remain reusable across
    samplers (e.g., Langevin uses only position `x`, HMC uses position `x` and
    momentum `p`).

    Methods follow PyTorch conventions and inherit `device`/`dtype` from
    `TorchEBMModule`.
    """

    def __init__(
        self,
        device: Optional[torch.device] = None,
        dtype: Optional[torch.dtype] = None,
        *args,
        **kwargs,
    ):
        super().__init__(device=device, dtype=dtype, *args, **kwargs)

    @staticmethod
    def _resolve_drift(
        drift: Optional[Callable[[torch.Tensor, torch.Tensor], torch.Tensor]],
    ) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
        r"""Return the drift callable after validation.

        Raises:
            ValueError: If ``drift`` is ``None``.
        """
        if drift is not None:
            return drift
        raise ValueError(
            "drift must be provided explicitly. For EBM sampling, pass "
            "drift=lambda x, t: -model.gradient(x) from the caller."
        )

    @abstractmethod
    def step(
        self,
        state: Dict[str, torch.Tensor],
        step_size: torch.Tensor,
        *args,
        **kwargs,
    ) -> Dict[str, torch.Tensor]:
        """
        Advance the dynamical state by one integrator application.

        Args:
            state: Mapping containing required tensors (e.g., {'x': ..., 'p': ...}).
            step_size: Step size for the integration.
            *args: Additional positional arguments specific to the integrator.
            **kwargs: Additional keyword arguments specific to the integrator.

        Returns:
            Updated state dict with the same keys as the input `state`.
        """
        raise NotImplementedError

    @abstractmethod
    def integrate(
        self,
        state: Dict[str, torch.Tensor],
        step_size: torch.Tensor,
        n_steps: int,
        *args,
        **kwargs,
    ) -> Dict[str, torch.Tensor]:
        """
        Advance the dynamical state by `n_steps` integrator applications.

        Args:
            state: Mapping containing required tensors (e.g., {'x': ..., 'p': ...}).
            step_size: Step size for the integration.
            n_steps: The number of integration steps to perform.
            *args: Additional positional arguments specific to the integrator.
            **kwargs: Additional keyword arguments specific to the integrator.

        Returns:
            Updated state dict with the same keys as the input `state`.
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class BaseRungeKuttaIntegrator(BaseIntegrator):
    r"""Abstract base class for explicit Runge-Kutta ODE integrators.

    Subclasses define a Butcher tableau via the abstract properties
    ``tableau_a``, ``tableau_b``, and ``tableau_c`` and automatically
    inherit generic stepping and integration logic.

    For an \(s\)-stage explicit RK method the update reads

    \[
    k_i = f\!\bigl(x + h \sum_{j=0}^{i-1} a_{ij}\,k_j,\;
                    t + c_i\,h\bigr),
    \quad i = 0,\ldots,s{-}1
    \]

    \[
    x_{n+1} = x_n + h \sum_{i=0}^{s-1} b_i\,k_i
    \]

    **Adaptive step-size control** is available automatically for subclasses
    that define ``error_weights`` and ``order``.  When ``adaptive=True`` is
    passed to ``integrate`` (or left as ``None`` for auto-detection), the
    integrator uses an embedded error pair to control the step size.

    Args:
        device: Device for computations.
        dtype: Data type for computations.
        atol: Absolute tolerance for adaptive stepping.
        rtol: Relative tolerance for adaptive stepping.
        max_steps: Maximum number of steps (accepted + rejected) before
            raising ``RuntimeError``.
        safety: Safety factor for step-size adjustment (< 1).
        min_factor: Minimum step-size shrink factor.
        max_factor: Maximum step-size growth factor.
        max_step_size: Maximum absolute step size allowed during adaptive
            integration.  Defaults to ``inf`` (no limit).
        norm: Callable ``norm(tensor) -> scalar`` used to measure the
            local error.  Defaults to the RMS norm
            \(\sqrt{\mathrm{mean}(x^2)}\).

    Example:
        ```python
        from torchebm.core import BaseRungeKuttaIntegrator
        import torch

        class MidpointIntegrator(BaseRungeKuttaIntegrator):
            @property
            def tableau_a(self):
                return ((), (0.5,))

            @property
            def tableau_b(self):
                return (0.0, 1.0)

            @property
            def tableau_c(self):
                return (0.0, 0.5)

        integrator = MidpointIntegrator()
        state = {"x": torch.randn(100, 2)}
        drift = lambda x, t: -x
        result = integrator.step(state, step_size=0.01, drift=drift)
        ```
    """

    def __init__(
        self,
        device: Optional[torch.device] = None,
        dtype: Optional[torch.dtype] = None,
        *,
        atol: float = 1e-6,
        rtol: float = 1e-3,
        max_steps: int = 10_000,
        safety: float = 0.9,
        min_factor: float = 0.2,
        max_factor: float = 10.0,
        max_step_size: float = float("inf"),
        norm: Optional[Callable[[torch.Tensor], torch.Tensor]] = None,
        solver_max_iter: int = 8,
        solver_tol: float = 1e-6,
        solver_check_every: int = 0,
    ):
        super().__init__(device=device, dtype=dtype)
        self.atol = atol
        self.rtol = rtol
        self.max_steps = max_steps
        self.safety = safety
        self.min_factor = min_factor
        self.max_factor = max_factor
        self.max_step_size = max_step_size
        self._norm = norm
        self.solver_max_iter = solver_max_iter
        self.solver_tol = solver_tol
        self.solver_check_every = solver_check_every
        self._register_tableau_buffers()

    def _register_tableau_buffers(self):
        r"""Pre-compute Butcher tableau as registered buffers for efficient GPU computation."""
        s = len(self.tableau_c)
        _device = self.device
        _dtype = self.dtype
        a = torch.zeros(s, s, device=_device, dtype=_dtype)
        for i, row in enumerate(self.tableau_a):
            for j, val in enumerate(row):
                a[i, j] = val
        self.register_buffer("_buf_a", a)
        self.register_buffer("_buf_b", torch.tensor(self.tableau_b, device=_device, dtype=_dtype))
        self.register_buffer("_buf_c", torch.tensor(self.tableau_c, device=_device, dtype=_dtype))
        e = self.error_weights
        self.register_buffer(
            "_buf_e",
            torch.tensor(e, device=_device, dtype=_dtype) if e is not None else None,
        )
        # Per-stage implicit flag, derived from the diagonal of `a`.
        # Stage `i` is implicit iff a[i, i] != 0 (DIRK convention).
        # Stored as a Python tuple so the per-stage dispatch in _evaluate_stages
        # is a free bool check with no GPU op or sync per step.
        self._stage_implicit: Tuple[bool, ...] = tuple(
            bool(a[i, i] != 0) for i in range(s)
        )

    # butcher tableau, must be defined by subclasses

    @property
    @abstractmethod
    def tableau_a(self) -> Tuple[Tuple[float, ...], ...]:
        r"""Lower-triangular RK matrix \(a_{ij}\).

        ``tableau_a[i]`` contains coefficients \(a_{i0}, \ldots, a_{i,i-1}\)
        for explicit methods; for diagonally-implicit (DIRK) methods the row
        extends to \(a_{ii}\) (length ``i+1``). A stage with non-zero diagonal
        entry ``a[i, i]`` is solved by Picard iteration in ``_evaluate_stages``.
        The first row is the empty tuple ``()`` for explicit methods.
        """

    @property
    @abstractmethod
    def tableau_b(self) -> Tuple[float, ...]:
        r"""Weights \(b_i\) used to combine stages into the final update."""

    @property
    @abstractmethod
    def tableau_c(self) -> Tuple[float, ...]:
        r"""Nodes \(c_i\) — time-fraction offsets for each stage evaluation."""

    @property
    def n_stages(self) -> int:
        """Number of stages *s* in the method."""
        return len(self.tableau_c)

    # adaptive properties, override in embedded-pair subclasses

    @property
    def error_weights(self) -> Optional[Tuple[float, ...]]:
        r"""Error estimation weights \(e_i = b_i - \hat{b}_i\).

        Return ``None`` (the default) for methods without an embedded pair.
        For FSAL methods the tuple has ``n_stages + 1`` entries; for
        non-FSAL methods it has ``n_stages`` entries.
        """
        return None

    @property
    def order(self) -> Optional[int]:
        r"""Order *p* of the higher-order solution.

        Used in the step-size control exponent \(-1/p\).  Return ``None``
        (the default) for methods without adaptive support.
        """
        return None

    @property
    def fsal(self) -> bool:
        r"""Whether the method has the First Same As Last property.

        When ``True`` the integrator evaluates one extra stage at the
        accepted solution and reuses it as the first stage of the next
        step, saving one drift evaluation per accepted step.
        """
        return False

    # helpers

    @staticmethod
    def _rms_norm(x: torch.Tensor) -> torch.Tensor:
        r"""Root-mean-square norm: \(\sqrt{\mathrm{mean}(x^2)}\)."""
        return torch.sqrt(torch.mean(x ** 2))

    def _tableau_on(
        self, device: torch.device, dtype: torch.dtype
    ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
        r"""Return tableau tensors (a, b, c, e) cached on (device, dtype)."""
        key = (device, dtype)
        if getattr(self, "_tableau_cache_key", None) != key:
            self._cached_a = self._buf_a.to(device=device, dtype=dtype)
            self._cached_b = self._buf_b.to(device=device, dtype=dtype)
            self._cached_c = self._buf_c.to(device=device, dtype=dtype)
            self._cached_e = (
                self._buf_e.to(device=device, dtype=dtype)
                if self._buf_e is not None
                else None
            )
            self._tableau_cache_key = key
        return self._cached_a, self._cached_b, self._cached_c, self._cached_e

    def _evaluate_stages(
        self,
        x: torch.Tensor,
        t: torch.Tensor,
        step_size: torch.Tensor,
        drift_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
        k0: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        r"""Evaluate all RK stages and return a tensor of shape ``(s, *x.shape)``.

        Per-stage dispatch on ``self._stage_implicit[i]``: stages with
        ``a[i, i] == 0`` (explicit) use a single drift evaluation; stages
        with ``a[i, i] != 0`` (DIRK) solve the implicit equation
        \(k_i = f(x_{\text{base}} + h\,a_{ii}\,k_i,\,t_i)\) by Picard
        iteration via ``_solve_implicit_stage``.

        Args:
            x: Current position tensor.
            t: Current time tensor (batch,).
            step_size: Step size \(h\).
            drift_fn: Drift callable ``f(x, t)``.
            k0: Optional pre-computed first stage.  When provided the first
                drift evaluation is skipped (used by FSAL methods to reuse
                the last stage of the previous step).
        """
        a, _, c, _ = self._tableau_on(x.device, x.dtype)
        s = a.size(0)
        k = x.new_empty((s,) + x.shape)
        for i in range(s):
            if i == 0 and k0 is not None:
                k[0] = k0
                continue
            if i == 0:
                x_stage = x
            else:
                # Fused mul+reduce via einsum (1 kernel) instead of
                # broadcast-mul + sum (2 kernels per stage).
                x_stage = x + step_size * torch.einsum(
                    "i,i...->...", a[i, :i], k[:i]
                )
            t_stage = t + c[i] * step_size
            if self._stage_implicit[i]:
                k[i] = self._solve_implicit_stage(
                    x_stage, t_stage, step_size, a[i, i], drift_fn,
                )
            else:
                k[i] = drift_fn(x_stage, t_stage)
        return k

    def _solve_implicit_stage(
        self,
        base: torch.Tensor,
        t: torch.Tensor,
        h: torch.Tensor,
        a_ii: torch.Tensor,
        drift_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    ) -> torch.Tensor:
        r"""Solve \(k = f(\text{base} + h\,a_{ii}\,k,\,t)\) by Picard iteration.

        Default path (``solver_check_every <= 0``) runs ``solver_max_iter``
        iterations unconditionally with no CPU-GPU sync. The opt-in path
        (``solver_check_every > 0``) checks the RMS residual every
        ``solver_check_every`` iterations and exits early when below
        ``solver_tol`` (one ``.item()`` sync per check).

        The mul-add \(\text{base} + h\,a_{ii}\,k\) uses ``torch.addcmul``
        for single-kernel fusion (cf. einsum-fusion at line 332).
        """
        coef = h * a_ii                              # scalar 0-d tensor, once
        k = drift_fn(base, t)                        # warm start
        if self.solver_check_every <= 0:
            for _ in range(self.solver_max_iter - 1):
                k = drift_fn(torch.addcmul(base, coef, k), t)
            return k
        for it in range(1, self.solver_max_iter):
            k_next = drift_fn(torch.addcmul(base, coef, k), t)
            if it % self.solver_check_every == 0:
                resid = (k_next - k).square().mean().sqrt()
                k = k_next
                # Unavoidable host sync: the convergence branch is data-dependent,
                # bounded to one per `solver_check_every` iterations.
                if resid.item() < self.solver_tol:
                    break
            else:
                k = k_next
        return k

    def _combine_stages(
        self,
        x: torch.Tensor,
        step_size: torch.Tensor,
        k: torch.Tensor,
    ) -> torch.Tensor:
        r"""Combine RK stages into the deterministic update \(x + h \sum b_i k_i\)."""
        _, b, _, _ = self._tableau_on(x.device, x.dtype)
        s = k.size(0)
        # Fused mul+reduce via einsum (1 kernel) instead of broadcast + sum.
        return x + step_size * torch.einsum("i,i...->...", b[:s], k)

    def _deterministic_step(
        self,
        x: torch.Tensor,
        step_size: torch.Tensor,
        drift_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
        t: torch.Tensor,
    ) -> torch.Tensor:
        r"""Compute the deterministic RK update \(x + h \sum b_i k_i\)."""
        k = self._evaluate_stages(x, t, step_size, drift_fn)
        return self._combine_stages(x, step_size, k)

    @staticmethod
    def _build_time_grid(
        x: torch.Tensor,
        step_size: torch.Tensor,
        n_steps: int,
        t: Optional[torch.Tensor],
    ) -> torch.Tensor:
        r"""Build or validate the 1-D time grid for fixed-step integration."""
        if n_steps <= 0:
            raise ValueError("n_steps must be positive")
        if t is None:
            if not torch.is_tensor(step_size):
                step_size = torch.tensor(
                    step_size, device=x.device, dtype=x.dtype
                )
            t = (
                torch.arange(n_steps + 1, device=x.device, dtype=x.dtype)
                * step_size
            )
        if t.ndim != 1 or t.numel() < 2:
            raise ValueError("t must be a 1D tensor with length >= 2")
        return t

    def _adaptive_integrate(
        self,
        x: torch.Tensor,
        drift_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
        t_start: float,
        t_end: float,
        h: float,
    ) -> torch.Tensor:
        r"""Core adaptive integration loop from *t_start* to *t_end*."""
        t_current = t_start
        p = self.order
        is_fsal = self.fsal
        norm_fn = self._norm if self._norm is not None else self._rms_norm

        k1_cached: Optional[torch.Tensor] = None
        if is_fsal:
            t_batch = torch.full(
                (x.size(0),), t_current, device=x.device, dtype=x.dtype
            )
            k1_cached = drift_fn(x, t_batch)

        for _ in range(self.max_steps):
            if t_current >= t_end - 1e-12 * max(abs(t_end), 1.0):
                break

            h = min(h, t_end - t_current, self.max_step_size)
            h_t = torch.tensor(h, device=x.device, dtype=x.dtype)
            t_batch = torch.full(
                (x.size(0),), t_current, device=x.device, dtype=x.dtype
            )

            k = self._evaluate_stages(x, t_batch, h_t, drift_fn, k0=k1_cached)
            y_new = self._combine_stages(x, h_t, k)

            # Error estimation
            if is_fsal:
                k_fsal = drift_fn(y_new, t_batch + h_t)
                k_err = torch.cat([k, k_fsal.unsqueeze(0)], dim=0)
            else:
                k_err = k

            _, _, _, e_buf = self._tableau_on(x.device, x.dtype)
            # Fused mul+reduce via einsum (1 kernel) instead of broadcast + sum.
            err_vec = h_t * torch.einsum(
                "i,i...->...", e_buf[: k_err.size(0)], k_err
            )

            scale = self.atol + self.rtol * torch.max(x.abs(), y_new.abs())
            # Unavoidable host sync: step accept/reject and the resize of `h` are
            # data-dependent on this ratio. One per attempted step.
            err_ratio = norm_fn(err_vec / scale).item()

            if err_ratio <= 1.0:
                x = y_new
                t_current += h
                k1_cached = k_fsal if is_fsal else None

            if err_ratio == 0.0:
                factor = self.max_factor
            else:
                factor = min(
                    self.max_factor,
                    max(
                        self.min_factor,
                        self.safety * err_ratio ** (-1.0 / p),
                    ),
                )
            h = min(h * factor, self.max_step_size)
        else:
            raise RuntimeError(
                f"{type(self).__name__}: maximum number of steps "
                f"({self.max_steps}) exceeded."
            )

        return x

    def step(
        self,
        state: Dict[str, torch.Tensor],
        step_size: torch.Tensor,
        *,
        drift: Optional[
            Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
        ] = None,
        t: Optional[torch.Tensor] = None,
    ) -> Dict[str, torch.Tensor]:
        r"""Advance the state by one deterministic RK step.

        Args:
            state: Mapping containing ``"x"`` position tensor.
            step_size: Step size for the integration.
            drift: Explicit drift callable ``f(x, t)``.
            t: Current time tensor (batch,).

        Returns:
            Updated state dict ``{"x": x_new}``.
        """
        x = state["x"]
        if not torch.is_tensor(step_size):
            step_size = torch.tensor(step_size, device=x.device, dtype=x.dtype)
        if t is None:
            t = torch.zeros(x.size(0), device=x.device, dtype=x.dtype)

        drift_fn = self._resolve_drift(drift)
        x_new = self._deterministic_step(x, step_size, drift_fn, t)
        return {"x": x_new}

    def integrate(
        self,
        state: Dict[str, torch.Tensor],
        step_size: torch.Tensor,
        n_steps: int,
        *,
        drift: Optional[
            Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
        ] = None,
        t: Optional[torch.Tensor] = None,
        adaptive: Optional[bool] = None,
        inference_mode: bool = False,
    ) -> Dict[str, torch.Tensor]:
        r"""Integrate the state over a time interval (ODE).

        Args:
            state: Mapping with key ``"x"`` holding the position tensor.
            step_size: Uniform step size (fixed mode) or initial step size
                (adaptive mode).
            n_steps: Number of integration steps (fixed mode) or, together
                with ``step_size``, defines the integration interval when
                ``t`` is ``None``.
            drift: Explicit drift callable ``f(x, t)``.
            t: 1-D time grid.  Built from ``step_size`` when ``None``.
                In adaptive mode only ``t[0]`` and ``t[-1]`` are used.
            adaptive: ``True`` for adaptive step-size control, ``False``
                for fixed-step.  When ``None`` (default) adaptive mode
                is used automatically if ``error_weights`` is defined.
            inference_mode: When ``True``, wraps computation in
                ``torch.inference_mode()`` for faster execution without
                gradient tracking.

        Returns:
            Updated state dict ``{"x": x_final}``.
        """
        if inference_mode:
            with torch.inference_mode():
                return self.integrate(
                    state, step_size, n_steps,
                    drift=drift, t=t, adaptive=adaptive,
                )

        if adaptive is None:
            adaptive = self.error_weights is not None

        # fixed-step path
        if not adaptive:
            t_grid = self._build_time_grid(state["x"], step_size, n_steps, t)
            x = state["x"]
            drift_fn = self._resolve_drift(drift)
            n = t_grid.numel() - 1
            batch_size = x.size(0)
            dts = t_grid[1:] - t_grid[:-1]
            for i in range(n):
                t_batch = t_grid[i].expand(batch_size)
                x = self._deterministic_step(x, dts[i], drift_fn, t_batch)
            return {"x": x}

        # adaptive path
        if self.error_weights is None or self.order is None:
            raise ValueError(
                f"{type(self).__name__} does not define error_weights/order "
                f"and cannot be used with adaptive=True."
            )

        x = state["x"]
        drift_fn = self._resolve_drift(drift)

        if not torch.is_tensor(step_size):
            step_size = torch.tensor(
                step_size, device=x.device, dtype=x.dtype
            )

        if t is not None:
            if t.ndim != 1 or t.numel() < 2:
                raise ValueError("t must be a 1D tensor with length >= 2")
            t_start = t[0].item()
            t_end = t[-1].item()
        else:
            t_start = 0.0
            t_end = float(n_steps) * step_size.item()

        h = min(step_size.item(), t_end - t_start, self.max_step_size)
        x = self._adaptive_integrate(x, drift_fn, t_start, t_end, h)
        return {"x": x}

    def __repr__(self) -> str:
        if self.error_weights is not None:
            return (
                f"{self.__class__.__name__}("
                f"atol={self.atol}, rtol={self.rtol}, "
                f"max_steps={self.max_steps})"
            )
        return f"{self.__class__.__name__}()"


class BaseSDERungeKuttaIntegrator(BaseRungeKuttaIntegrator):
    r"""Runge-Kutta integrator with additive SDE noise.

    Extends ``BaseRungeKuttaIntegrator`` to solve Ito SDEs of the form

    \[
    \mathrm{d}x = f(x,t)\,\mathrm{d}t + \sqrt{2D(x,t)}\,\mathrm{d}W_t
    \]

    The stochastic term is applied as an Euler-order additive correction
    after the deterministic RK update:

    \[
    x_{n+1} = \underbrace{x_n + h \sum_{i} b_i\,k_i}_{\text{RK update}}
              + \sqrt{2\,D(x_n, t_n)}\,\Delta W_n
    \]

    Because the noise is added independently of the RK stages, the strong
    convergence order is \(0.5\) (Euler--Maruyama level) regardless of the
    underlying RK scheme order.  The higher-order RK tableau improves only
    the deterministic component.

    When ``diffusion`` is omitted the integrator reduces to its parent
    ODE behaviour.
    """

    @staticmethod
    def _resolve_diffusion(
        diffusion: Optional[torch.Tensor],
        noise_scale: Optional[torch.Tensor],
    ) -> Optional[torch.Tensor]:
        r"""Return the diffusion coefficient from an explicit value or ``noise_scale``.

        A scalar ``noise_scale`` is kept as a Python float (``noise_scale ** 2``)
        rather than wrapped in a device tensor, which would force a per-step
        host->device sync; the caller's arithmetic broadcasts it against the
        state tensor without one.
        """
        if diffusion is not None:
            return diffusion
        if noise_scale is not None:
            return noise_scale ** 2
        return None

    def step(
        self,
        state: Dict[str, torch.Tensor],
        step_size: torch.Tensor,
        *,
        drift: Optional[
            Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
        ] = None,
        diffusion: Optional[torch.Tensor] = None,
        noise: Optional[torch.Tensor] = None,
        noise_scale: Optional[torch.Tensor] = None,
        t: Optional[torch.Tensor] = None,
        generator: Optional[torch.Generator] = None,
    ) -> Dict[str, torch.Tensor]:
        r"""Advance the state by one RK step with optional SDE noise.

        The deterministic update uses the Butcher tableau defined by the
        subclass.  When a diffusion coefficient is provided, additive
        Wiener noise is appended at Euler--Maruyama order (strong order
        \(0.5\)).

        Args:
            state: Mapping containing ``"x"`` position tensor.
            step_size: Step size for the integration.
            drift: Explicit drift callable ``f(x, t)``.
            diffusion: Diffusion coefficient \(D(x, t)\) tensor.
            noise: Pre-sampled noise tensor.  When ``None``, standard
                normal noise is generated internally.
            noise_scale: Scalar whose square is used as \(D\) when
                ``diffusion`` is not given.
            t: Current time tensor (batch,).
            generator: RNG for the internally generated Wiener noise; the
                global RNG when ``None``. Ignored when ``noise`` is supplied.

        Returns:
            Updated state dict ``{"x": x_new}``.
        """
        x = state["x"]
        if t is None:
            t = torch.zeros(x.size(0), device=x.device, dtype=x.dtype)

        drift_fn = self._resolve_drift(drift)
        diffusion_val = self._resolve_diffusion(diffusion, noise_scale)

        x_new = self._deterministic_step(x, step_size, drift_fn, t)

        if diffusion_val is not None:
            if noise is None:
                noise = torch.randn_like(
                    x, device=self.device, dtype=self.dtype, generator=generator
                )
            # step_size/diffusion_val stay Python floats to avoid a per-step host
            # sync; ** 0.5 accepts floats and tensors, torch.sqrt would not.
            dw = noise * (step_size**0.5)
            x_new = x_new + (2.0 * diffusion_val) ** 0.5 * dw

        return {"x": x_new}

    def integrate(
        self,
        state: Dict[str, torch.Tensor],
        step_size: torch.Tensor,
        n_steps: int,
        *,
        drift: Optional[
            Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
        ] = None,
        diffusion: Optional[
            Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
        ] = None,
        noise_scale: Optional[torch.Tensor] = None,
        t: Optional[torch.Tensor] = None,
        adaptive: Optional[bool] = None,
        inference_mode: bool = False,
        generator: Optional[torch.Generator] = None,
    ) -> Dict[str, torch.Tensor]:
        r"""Integrate the state over a time interval (ODE or SDE).

        When ``diffusion`` or ``noise_scale`` is provided the integration
        uses fixed-step SDE mode.  Adaptive step-size control is available
        only for the ODE case (no diffusion).

        Args:
            state: Mapping with key ``"x"``.
            step_size: Step size (fixed) or initial step size (adaptive).
            n_steps: Number of integration steps.
            drift: Explicit drift callable ``f(x, t)``.
            diffusion: Time-dependent diffusion callable ``D(x, t)``.
            noise_scale: Scalar whose square is used as \(D\) when
                ``diffusion`` is not given.
            t: 1-D time grid.
            adaptive: ``True`` for adaptive (ODE only), ``False`` for fixed.
            inference_mode: When ``True``, wraps computation in
                ``torch.inference_mode()`` for faster execution without
                gradient tracking.
            generator: RNG for the Wiener noise on the SDE path; the global
                RNG when ``None``.

        Returns:
            Updated state dict ``{"x": x_final}``.
        """
        if inference_mode:
            with torch.inference_mode():
                return self.integrate(
                    state, step_size, n_steps,
                    drift=drift, diffusion=diffusion,
                    noise_scale=noise_scale, t=t, adaptive=adaptive,
                    generator=generator,
                )

        if adaptive is None:
            adaptive = self.error_weights is not None

        if adaptive:
            if diffusion is not None or noise_scale is not None:
                raise ValueError(
                    "Adaptive stepping is only supported for ODEs. "
                    "Pass adaptive=False for SDE integration."
                )
            return super().integrate(
                state, step_size, n_steps,
                drift=drift, t=t, adaptive=True,
            )

        # fixed-step SDE/ODE path
        t_grid = self._build_time_grid(state["x"], step_size, n_steps, t)
        x = state["x"]
        drift_fn = self._resolve_drift(drift)
        has_diffusion_fn = diffusion is not None
        ns_const = (
            self._resolve_diffusion(None, noise_scale)
            if not has_diffusion_fn
            else None
        )
        n = t_grid.numel() - 1
        batch_size = x.size(0)
        for i in range(n):
            dt = t_grid[i + 1] - t_grid[i]
            t_batch = t_grid[i].expand(batch_size)
            diff_val = diffusion(x, t_batch) if has_diffusion_fn else ns_const
            x = self._deterministic_step(x, dt, drift_fn, t_batch)
            if diff_val is not None:
                noise = torch.randn_like(x, generator=generator)
                x = x + (2.0 * diff_val) ** 0.5 * noise * torch.sqrt(dt)
        return {"x": x}


class BaseSymplecticIntegrator(BaseIntegrator):
    r"""Base class for symplectic integrators of Hamiltonian dynamics.

    Symplectic integrators advance a phase-space state dict with keys
    ``"x"`` (position) and ``"p"`` (momentum) while preserving the
    symplectic form, which makes them time-reversible and suitable for
    Metropolis-Hastings proposals (HMC family). Two callback contracts
    exist, distinguished by the ``separable`` class attribute:

    - ``separable = True``: separable Hamiltonians
      \( H(x, p) = U(x) + K(p) \). Subclasses take a ``drift(x, t)``
      callable (\( = -\nabla_x U \)) and an optional ``mass`` term
      (`LeapfrogIntegrator`).
    - ``separable = False``: general non-separable Hamiltonians.
      Subclasses take ``force(x, p, t)`` and ``velocity(x, p, t)``
      callables (`GeneralisedLeapfrogIntegrator`).

    Subclass ``integrate`` implementations must honor
    ``inference_mode=True`` by re-entering themselves under
    ``torch.inference_mode()``.

    Attributes:
        separable: Whether the integrator assumes a separable Hamiltonian.
        _SAFE_CLAMP: Magnitude bound applied to forces/state in safe mode.
    """

    separable: bool = True
    _SAFE_CLAMP: float = 1e6

    @staticmethod
    def _validate_n_steps(n_steps: int) -> None:
        r"""Raise if ``n_steps`` is not a positive integer count."""
        if n_steps <= 0:
            raise ValueError("n_steps must be positive")

    @staticmethod
    def _unpack_state(
        state: Dict[str, torch.Tensor],
        step_size,
    ) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        r"""Extract ``(x, p)``, tensorize ``step_size``, build batch time.

        Returns:
            Tuple ``(x, p, step_size, t)`` with ``step_size`` on
            ``x.device``/``x.dtype`` and ``t`` a zero tensor of shape
            ``(batch,)`` (autonomous Hamiltonians; ``t`` exists for
            callback signature uniformity).
        """
        x = state["x"]
        p = state["p"]
        if not torch.is_tensor(step_size):
            step_size = torch.tensor(step_size, device=x.device, dtype=x.dtype)
        t = torch.zeros(x.size(0), device=x.device, dtype=x.dtype)
        return x, p, step_size, t

    def _safe_clamp_(self, tensor: torch.Tensor) -> torch.Tensor:
        r"""In-place magnitude clamp used by safe mode."""
        return tensor.clamp_(min=-self._SAFE_CLAMP, max=self._SAFE_CLAMP)

    @staticmethod
    def _sanitize_state_(x: torch.Tensor, p: torch.Tensor) -> None:
        r"""Replace NaNs by zeros in-place on freshly owned tensors.

        Unconditional ``nan_to_num_`` is idempotent on clean tensors and
        avoids the per-step CPU sync that
        ``isnan(x).any() or isnan(p).any()`` would force (Python ``or``
        materialises both 0-d bools to host).
        """
        x.nan_to_num_(nan=0.0)
        p.nan_to_num_(nan=0.0)
