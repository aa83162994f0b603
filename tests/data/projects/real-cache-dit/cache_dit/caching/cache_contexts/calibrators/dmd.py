# Dynamic Mode Decomposition (Prony) calibrator — an EXPONENTIAL-basis alternative
# to the TaylorSeer polynomial forecaster. Note: "DMD" here is Dynamic Mode
# Decomposition (Schmid 2010; the SVD-regularised, multivariate generalisation of
# Prony's method, 1795), NOT Distribution Matching Distillation.
#
# Why an exponential basis: across denoising steps the cached feature/residual
# evolves under a (slowly varying) near-linear operator, so locally it is a sum of
# damped / oscillatory EXPONENTIALS — the exact solution class of a linear ODE.
# A polynomial (Taylor) forecast is only a local truncation of that class and
# diverges as the skip horizon grows; the exponential basis is exact on the class,
# so it keeps quality at larger cache intervals.
#
# Relationship with DBCache — a drop-in forecast layer, NOT an algorithm change:
#   DBCache's residual fusion formula is fixed (apply_cache):
#       hidden_states = Bn_residual(t) + Fn_output(t+1)
#   The calibrator only forecasts the LEFT operand (Bn_residual from step t).
#   The RIGHT operand, Fn_output(t+1), is ALWAYS freshly computed by the Fn
#   blocks at the current denoising step — this is how current-step information
#   is injected, so the calibrator does not need to model the full hidden-state
#   dynamics, only the relatively small residual correction.
#   Without a calibrator, Bn_residual(t) is the stale value from the last
#   full-compute step. With DMDCalibrator, it is replaced by the DMD forecast
#   of what the Bn residual should be at the CURRENT step — same formula,
#   smarter operand. The calibrator does not touch DBCache's threshold logic,
#   diff tracking, or accumulation guards; it only provides a better
#   `hidden_states_prev` via get_Bn_buffer() → calibrator.approximate().
#
# Core mechanism — eigenvalues are NOT static; they are recomputed on every
# sliding-window change via lazy re-fitting:
#
#   Prediction formula:
#       Y_{t+k} = Φ · (λ^k ⊙ b) = Σ_i φ_i · λ_i^k · b_i
#
#   Two-level variation:
#     1. Intra-window (skip steps between two full-compute steps):
#        λ is fixed, but the horizon k increases with each skip step.
#        λ^k evolves (damped / oscillatory / growing), producing a different
#        forecast at each skip step — this is how the prediction "moves" even
#        though the eigenvalues haven't changed.
#
#     2. Inter-window (across the denoising trajectory):
#        Every full-compute step calls DMDState.update(), which appends the
#        new snapshot, evicts the oldest (sliding window of `history` frames),
#        and sets _fit_key = None. On the next approximate() call, the guard
#        `if self._fit_key != key` triggers a fresh SVD + eigendecomposition
#        on the updated snapshot window. The eigenvalues λ are thus re-
#        estimated continuously, tracking the slowly-drifting denoising
#        dynamics. The window is deliberately short (5–6) because the
#        underlying propagator A(t) is non-autonomous — a long window would
#        average over changing dynamics and hurt accuracy.
#
#   Calling chain:
#       cache_manager.get_Bn_buffer()           # cache hit → need forecast
#         → DMDCalibrator.approximate()
#           → DMDState.approximate()
#             → _uniform_tail()                 # extract uniformly-spaced tail
#             → if _fit_key != key:             # window changed since last fit?
#                 → _dmd_fit(vels)              # ★ re-fit: SVD + eig (once per window)
#                   → _dmd_fit_one()            #     economy SVD → A_tilde → eig(λ)
#             → _dmd_eval(self._fit, k)         # cheap: Φ @ (λ^k * b)
#
#       cache_manager.set_Bn_buffer()           # full-compute step → store truth
#         → DMDCalibrator.update()
#           → DMDState.update()
#             → snapshots.append(Y)             # slide window
#             → del snapshots[:oldest]          # evict oldest
#             → _fit_key = None                 # invalidate cached fit
import math
from typing import Dict, List, Tuple

import torch

from .base import CalibratorBase

from ....logger import init_logger

logger = init_logger(__name__)

_SVD_PRECISIONS = ("low", "medium", "high")
_SVD_LOWRANK_NITER = 1
_SVD_LOWRANK_SEED = 0


def _svd_rng_devices(X: torch.Tensor) -> list[int]:
  if X.device.type != "cuda":
    return []
  idx = X.device.index
  if idx is None:
    idx = torch.cuda.current_device()
  return [idx]


def _dmd_svd(
  X: torch.Tensor,
  svd_precision: str,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
  """Economy SVD for a tall-skinny ``[d, n]`` snapshot matrix.

  Three precision levels:
  - ``"low"``: randomised ``torch.svd_lowrank`` (fastest, niter=1, deterministic seed).
  - ``"medium"``: standard ``torch.linalg.svd`` with default ``gesdd``.
  - ``"high"``: ``torch.linalg.svd`` with ``driver="gesvd"`` for maximum accuracy
    (CUDA only; other devices use the default driver, same as ``"medium"``).

  :param X: Tall-skinny input matrix of shape ``[d, n]``.
  :param svd_precision: One of ``("low", "medium", "high")``.
  :returns: ``(U, S, Vh)`` — economy decomposition where ``U`` is ``[d, n]``,
      ``S`` is ``[n]``, and ``Vh`` is ``[n, n]``.
  """

  assert svd_precision in _SVD_PRECISIONS, (
    f"svd_precision must be one of {_SVD_PRECISIONS}, got {svd_precision!r}")
  n = X.shape[-1]
  if svd_precision == "low":
    with torch.random.fork_rng(devices=_svd_rng_devices(X)):
      torch.manual_seed(_SVD_LOWRANK_SEED)
      U, S, V = torch.svd_lowrank(X, q=n, niter=_SVD_LOWRANK_NITER)
      Vh = V.mH
  elif svd_precision == "high":
    # `driver=` is only accepted for CUDA inputs (cuSOLVER); passing it on CPU (or any
    # non-CUDA device) raises, which `_dmd_fit_one` would swallow and silently
    # degrade to reuse.
    driver = "gesvd" if X.device.type == "cuda" else None
    U, S, Vh = torch.linalg.svd(X, full_matrices=False, driver=driver)
  else:  # medium
    U, S, Vh = torch.linalg.svd(X, full_matrices=False)
  return U, S, Vh


def _dmd_fit_one(
  traj: torch.Tensor,
  rank: int = 0,
  ridge: float = 1e-8,
  svd_precision: str = "medium",
):
  """Fit the DMD eigendecomposition for ONE ``[d, n]`` trajectory (a single batch item's snapshot
  history, columns OLDEST..NEWEST).

  Identify the linear propagator ``A`` from the snapshot pairs
  (``Y_{t+1} ~= A Y_t``) through one economy SVD and eigendecompose it once. The
  fit is horizon-free, so the caller caches it and advances it cheaply (see
  :func:`_dmd_eval`).

  :param rank: SVD truncation rank; 0 selects it from the spectrum (drop modes
      below 1e-4 of the leading singular value — this is what rejects noise).
  :param ridge: Tikhonov term added to the inverted singular values.
  :param svd_precision: SVD precision mode; ``"low"`` uses randomised
      ``torch.svd_lowrank`` (fastest), ``"medium"`` uses default ``gesdd``,
      ``"high"`` uses ``driver="gesvd"``.
  :returns: ``(Phi, evals, b)`` or ``None`` on a degenerate fit (caller reuses
      the last value).
  """

  X, Xp = traj[:, :-1], traj[:, 1:]
  try:
    U, S, Vh = _dmd_svd(X, svd_precision)
  except Exception:  # noqa: BLE001 — degenerate fit: caller falls back to reuse
    return None
  r = rank
  if r <= 0:
    r = int((S > S[0] * 1e-4).sum().clamp(min=1).item())
  r = max(1, min(r, S.numel()))
  Ur, Sr, Vr = U[:, :r], S[:r], Vh[:r].mH
  Sinv = (1.0 / (Sr + ridge)).to(torch.complex128)
  Atil = (Ur.mH @ Xp @ Vr).to(torch.complex128) * Sinv.unsqueeze(0)
  try:
    evals, W = torch.linalg.eig(Atil)
    Phi = ((Xp @ Vr).to(torch.complex128) * Sinv.unsqueeze(0)) @ W
    b = torch.linalg.lstsq(Phi, traj[:, -1].to(torch.complex128).unsqueeze(1)).solution.squeeze(1)
  except Exception:  # noqa: BLE001 — degenerate fit: caller falls back to reuse
    return None
  return (Phi, evals, b)


def _dmd_fit(
  snapshots: List[torch.Tensor],
  rank: int = 0,
  ridge: float = 1e-8,
  svd_precision: str = "medium",
):
  """Fit DMD once for a window of >= 4 same-shape snapshots, INDEPENDENTLY per batch item (axis 0).

  Flattening the whole tensor into a single state (the pre-fix behaviour) folds
  the batch dimension into one DMD fit, so one prompt's forecast would depend on
  the other prompts in the same batch — unlike the elementwise Taylor path.
  Fitting per batch item keeps them independent. The fit is horizon-free, so
  :class:`DMDState` caches the returned object and reuses it for every skip step
  until a new snapshot arrives (one SVD/eig per window, not per skipped step).

  :returns: ``(per_item_fits, shape, dtype)``, or ``None`` when the window is
      too short. ``per_item_fits[i]`` is ``None`` for a degenerate batch item.
  """

  if len(snapshots) < 4:
    return None
  newest = snapshots[-1]
  shp, dt = newest.shape, newest.dtype
  bsz = shp[0] if newest.dim() > 1 else 1
  # (B, d, n): per-item trajectories; B == 1 reproduces the un-batched fit.
  V = torch.stack([s.reshape(bsz, -1) for s in snapshots], dim=-1).to(torch.float64)
  fits = [
    _dmd_fit_one(V[i], rank=rank, ridge=ridge, svd_precision=svd_precision) for i in range(bsz)
  ]
  return (fits, shp, dt)


def _dmd_eval(fit, k: float):
  """Advance a cached :func:`_dmd_fit` to (fractional) horizon ``k`` by eigenvalue powers —
  ``Y_{t+k} ~= Phi @ (lambda**k * b)`` — one cheap evaluation per batch item, no re-decomposition.

  :returns: The forecast tensor of the original snapshot shape, or ``None`` when
      any batch item is degenerate, or when the result is non-finite AFTER the
      output-dtype cast. The finite check is deliberately post-cast: a finite
      float64 forecast can still overflow to ``inf`` in fp16, which the caller
      must catch and fall back from rather than feed downstream.
  """

  fits, shp, dt = fit
  rows = []
  for f in fits:
    if f is None:
      return None
    Phi, evals, b = f
    rows.append((Phi @ (evals.pow(float(k)) * b)).real)
  pred = torch.stack(rows, dim=0) if len(shp) > 1 else rows[0]
  out = pred.to(dt).reshape(shp)
  if not torch.isfinite(out).all():
    return None
  return out


class DMDState:
  """Per-stream snapshot history + Taylor fallback for one calibration stream."""

  def __init__(
    self,
    history: int = 6,
    rank: int = 0,
    ridge: float = 1e-8,
    n_derivatives: int = 1,
    svd_precision: str = "medium",
  ):
    """Initialize snapshot buffers and the polynomial-fallback ladder.

    :param history: Number of recent compute-step snapshots retained. Kept
        short on purpose: the feature dynamics are non-autonomous (the
        propagator drifts across timesteps), so a long window would average
        over changing dynamics.
    :param rank: SVD truncation rank for the DMD fit (0 = automatic).
    :param ridge: Tikhonov regulariser for the DMD fit.
    :param n_derivatives: Taylor orders kept for the warm-up fallback.
    :param svd_precision: SVD precision mode; ``"low"`` uses randomised
        ``torch.svd_lowrank`` (fastest), ``"medium"`` uses default ``gesdd``,
        ``"high"`` uses ``driver="gesvd"``.
    """

    self.history = history
    self.rank = rank
    self.ridge = ridge
    self.n_derivatives = n_derivatives
    self.svd_precision = svd_precision
    self.order = n_derivatives + 1
    self.current_step = -1
    self.last_non_approximated_step = -1
    self.snapshots: List[Tuple[int, torch.Tensor]] = []
    # Cached horizon-free DMD fit + the window key it was fitted on, so skip
    # steps reuse one SVD/eig instead of recomputing it every step.
    self._fit = None
    self._fit_key = None
    self.state: Dict[str, List[torch.Tensor]] = {
      "dY_prev": [None] * self.order,
      "dY_current": [None] * self.order,
    }

  def reset(self):
    """Reset snapshot history, fallback buffers, and step counters."""

    self.current_step = -1
    self.last_non_approximated_step = -1
    self.snapshots = []
    self._fit = None
    self._fit_key = None
    self.state = {
      "dY_prev": [None] * self.order,
      "dY_current": [None] * self.order,
    }

  def mark_step_begin(self):
    """Advance the logical step counter by one."""

    self.current_step += 1

  def _update_taylor(self, Y: torch.Tensor):
    """Maintain the TaylorSeer divided-difference ladder (warm-up fallback)."""

    dY_current: List[torch.Tensor] = [None] * self.order
    dY_current[0] = Y
    window = self.current_step - self.last_non_approximated_step
    if self.state["dY_prev"][0] is not None:
      if dY_current[0].shape != self.state["dY_prev"][0].shape:
        self.reset()
    for i in range(self.n_derivatives):
      if self.state["dY_prev"][i] is not None and self.current_step > 1 and window > 0:
        dY_current[i + 1] = (dY_current[i] - self.state["dY_prev"][i]) / window
      else:
        break
    self.state["dY_prev"] = self.state["dY_current"]
    self.state["dY_current"] = dY_current

  def _approximate_taylor(self) -> torch.Tensor:
    """Taylor-expansion fallback, identical to `TaylorSeerState.approximate`."""

    elapsed = self.current_step - self.last_non_approximated_step
    output = 0
    for i, derivative in enumerate(self.state["dY_current"]):
      if derivative is not None:
        output += (1 / math.factorial(i)) * derivative * (elapsed ** i)
      else:
        break
    return output

  def update(self, Y: torch.Tensor):
    """Commit a fully computed tensor as the newest snapshot / anchor.

    :param Y: Fully computed tensor to record at the current step.
    """

    if self.snapshots and self.snapshots[-1][1].shape != Y.shape:
      self.reset()
    self._update_taylor(Y)
    # detach().clone(): a bare detached view shares storage with the pipeline
    # tensor, so buffer-reusing inference (torch.compile / CUDA graphs) could
    # silently overwrite the snapshot history in place.
    self.snapshots.append((self.current_step, Y.detach().clone()))
    if len(self.snapshots) > self.history:
      del self.snapshots[:len(self.snapshots) - self.history]
    self.last_non_approximated_step = self.current_step
    # A new snapshot changes the window, so the cached fit is stale.
    self._fit_key = None

  def _uniform_tail(self) -> Tuple[List[torch.Tensor], int]:
    """Longest uniformly spaced suffix of the snapshot history.

    The DMD propagator advances exactly one snapshot-spacing per application,
    so a mixed-spacing window (e.g. across the warm-up boundary, or when the
    dynamic cache changes its compute cadence) would corrupt the fit.

    :returns: (velocities OLDEST..NEWEST, spacing) — empty list when degenerate.
    """

    if len(self.snapshots) < 2:
      return [], 0
    steps = [s for s, _ in self.snapshots]
    spacing = steps[-1] - steps[-2]
    if spacing <= 0:
      return [], 0
    tail = [self.snapshots[-1], self.snapshots[-2]]
    j = len(self.snapshots) - 2
    while j - 1 >= 0 and steps[j] - steps[j - 1] == spacing:
      tail.append(self.snapshots[j - 1])
      j -= 1
    return [v for _, v in reversed(tail)], spacing

  def approximate(self) -> torch.Tensor:
    """Forecast the tensor for the current step.

    Uses the exponential Dynamic Mode Decomposition (Prony) forecast on the
    uniformly spaced snapshot tail with a fractional horizon
    ``(current_step - last_compute_step) / spacing``. Below the 4-snapshot
    identifiability floor (a real trajectory spends two real degrees of
    freedom per complex pole, so even one oscillatory mode needs 3 snapshot
    pairs) it falls back to the Taylor expansion — DMD acts only where it is
    valid and the polynomial path covers warm-up.

    The eigendecomposition depends only on the snapshot window, which cannot
    change between two skip steps, so it is fitted once per window and cached;
    each skip step only re-advances the cheap ``lambda**k`` horizon. A
    degenerate fit or non-finite forecast reuses the newest snapshot.

    :returns: The forecast tensor for the current logical step.
    """

    vels, spacing = self._uniform_tail()
    if len(vels) >= 4:
      k = (self.current_step - self.snapshots[-1][0]) / spacing
      key = (self.snapshots[-1][0], len(vels), spacing)
      if self._fit_key != key:
        self._fit = _dmd_fit(vels,
                             rank=self.rank,
                             ridge=self.ridge,
                             svd_precision=self.svd_precision)
        self._fit_key = key
      if self._fit is not None:
        pred = _dmd_eval(self._fit, k)
        if pred is not None:
          return pred
      return self.snapshots[-1][1].clone()
    return self._approximate_taylor()

  def step(self, Y: torch.Tensor):
    """Advance one step and return either the true tensor or its forecast.

    :param Y: Fully computed tensor when compute is required.
    :returns: The exact tensor or the DMD/Taylor forecast for this step.
    """

    self.mark_step_begin()
    if self.last_non_approximated_step < 0:
      self.update(Y)
      return Y
    return self.approximate()


class DMDCalibrator(CalibratorBase):
  """Calibrator that forecasts tensors with a Dynamic Mode Decomposition (Prony) exponential basis —
  drop-in alternative to `TaylorSeerCalibrator`."""

  def __init__(
    self,
    history: int = 6,
    rank: int = 0,
    ridge: float = 1e-8,
    n_derivatives: int = 1,
    svd_precision: str = "medium",
    **kwargs,
  ):
    """Create a calibrator whose states are keyed by logical tensor names.

    :param history: Snapshot window length retained per stream (5–6 typical).
    :param rank: SVD truncation rank for the DMD fit (0 = automatic).
    :param ridge: Tikhonov regulariser for the DMD fit.
    :param n_derivatives: Taylor orders for the warm-up fallback ladder.
    :param svd_precision: SVD precision mode; ``"low"`` uses randomised
        ``torch.svd_lowrank`` (fastest), ``"medium"`` uses default ``gesdd``,
        ``"high"`` uses ``driver="gesvd"``.
    :param kwargs: Additional keyword arguments forwarded to the underlying implementation.
    """

    self.history = history
    self.rank = rank
    self.ridge = ridge
    self.n_derivatives = n_derivatives
    self.svd_precision = svd_precision
    self.states: Dict[str, DMDState] = {}
    self.reset_cache()

  def reset_cache(self):
    """Reset every tracked `DMDState` without dropping the key mapping."""

    if self.states:
      for state in self.states.values():
        state.reset()

  def maybe_init_state(
    self,
    name: str = "default",
  ):
    """Lazily create one DMD state for a named tensor stream.

    :param name: Logical tensor-stream name.
    """

    if name not in self.states:
      self.states[name] = DMDState(
        history=self.history,
        rank=self.rank,
        ridge=self.ridge,
        n_derivatives=self.n_derivatives,
        svd_precision=self.svd_precision,
      )

  def mark_step_begin(self, *args, **kwargs):
    """Advance every tracked state's step counter.

    :param args: Additional positional arguments forwarded to the underlying implementation.
    :param kwargs: Additional keyword arguments forwarded to the underlying implementation.
    """

    if self.states:
      for state in self.states.values():
        state.mark_step_begin()

  def approximate(
    self,
    name: str = "default",
  ) -> torch.Tensor:
    """Forecast the next tensor for one named stream.

    :param name: Logical tensor-stream name.
    :returns: The forecast tensor for the named stream.
    """

    assert name in self.states, f"State '{name}' not found."
    state = self.states[name]
    return state.approximate()

  def update(
    self,
    Y: torch.Tensor,
    name: str = "default",
  ):
    """Feed a fully computed tensor into one named DMD state.

    :param Y: Fully computed tensor for the named stream.
    :param name: Logical tensor-stream name.
    """

    self.maybe_init_state(name)
    state = self.states[name]
    state.update(Y)

  def step(
    self,
    Y: torch.Tensor,
    name: str = "default",
  ):
    """Advance one named stream and return either computed or forecast output.

    :param Y: Fully computed tensor for the named stream when computation is required.
    :param name: Logical tensor-stream name.
    :returns: The exact tensor or DMD forecast for the named stream.
    """

    self.maybe_init_state(name)
    state = self.states[name]
    return state.step(Y)

  def __repr__(self):
    return f"DMDCalibrator_H({self.history})"
