"""Bijective transformations used by zflows flows.

Ported from `zuko/transforms.py`, restricted to the subset that any
zflows flow actually uses, plus two behavioural tweaks:

  - `MonotonicRQSTransform.bound` may be a per-coordinate `(d,)` tensor
    (or any tensor broadcastable to `widths.shape[:-1]`), not just a
    scalar. NSF / NCSF use this so spline knots span
    `[-halfwidth_i, halfwidth_i]` per coordinate without needing an
    affine scaling sandwich.
  - `CircularShiftTransform.bound` accepts the same per-coord tensor.

Side effect on import: `torch.distributions.transforms.Transform`
gains a `call_and_ladj(x) -> (y, log|det J|)` method, exactly as zuko
does. This is needed so that `Transform.inv` instances (which we don't
subclass) also pick it up.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from textwrap import indent
from typing import Any

import torch
import torch.nn.functional as F
from torch import BoolTensor, LongTensor, Size, Tensor
from torch.distributions import Transform, constraints
from torch.distributions.transforms import *  # noqa: F401,F403
from torch.distributions.utils import _sum_rightmost

from .numerics import broadcast, rk4_fixed


__all__ = [
    "AdditiveTransform",
    "AutoregressiveTransform",
    "CircularShiftTransform",
    "ComposedTransform",
    "CouplingTransform",
    "DependentTransform",
    "FreeFormJacobianTransform",
    "IdentityTransform",
    "LULinearTransform",
    "MonotonicAffineTransform",
    "MonotonicRQSTransform",
    "RotationTransform",
]


# ──────────────────────────────────────────────────────────────────────
# Patch Transform.call_and_ladj.
#
# Sub-classes that override `call_and_ladj` (e.g. MonotonicRQSTransform)
# get a fused y + ladj path; everything else gets a generic fallback
# that calls _call + log_abs_det_jacobian. We also rename the private
# _InverseTransform for prettier reprs, exactly as zuko does.
# ──────────────────────────────────────────────────────────────────────

def _call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
    y = self.__call__(x)
    ladj = self.log_abs_det_jacobian(x, y)
    return y, ladj


Transform.call_and_ladj = _call_and_ladj  # type: ignore[attr-defined]
torch.distributions.transforms._InverseTransform.__name__ = "Inverse"  # type: ignore[attr-defined]


# ──────────────────────────────────────────────────────────────────────
# Composed / Dependent / Identity / Additive  — small structural pieces
# ──────────────────────────────────────────────────────────────────────

class ComposedTransform(Transform):
    """Composition f_n ∘ ... ∘ f_0 with fused call_and_ladj.

    Equivalent to torch.distributions.transforms.ComposeTransform plus
    zuko's optimised log-det accumulator.

    Optional compiled fast paths (opt-in, mirror Potential.enable_grad):
    `enable_for_ladj()` / `enable_inv_ladj()` torch.compile this transform's
    fused `(points, log|det J|)` forward / inverse, then `for_ladj(x)` /
    `inv_ladj(x)` run the compiled versions of `call_and_ladj(x)` /
    `inv.call_and_ladj(x)`. See those methods for the (non-idempotent) refresh
    semantics and `tests/compare_compiled_inverse.md` for the speedups.
    """

    _for_ladj_fn = None # populated by enable_for_ladj()
    _inv_ladj_fn = None # populated by enable_inv_ladj()

    def __init__(self, *transforms: Transform, **kwargs) -> None:
        super().__init__(**kwargs)
        assert transforms, "'transforms' cannot be empty"

        event_dim = 0
        for t in reversed(transforms):
            event_dim = t.domain.event_dim + max(event_dim - t.codomain.event_dim, 0)
        self.domain_dim = event_dim

        for t in transforms:
            event_dim += t.codomain.event_dim - t.domain.event_dim
        self.codomain_dim = event_dim
        self.transforms = transforms

    def __repr__(self) -> str:
        lines = [f"({i}): {t}" for i, t in enumerate(self.transforms)]
        body = indent("\n".join(lines), "  ")
        return f"{self.__class__.__name__}(\n{body}\n)"

    @property
    def domain(self) -> constraints.Constraint:
        domain = self.transforms[0].domain
        reinterpreted = self.domain_dim - domain.event_dim
        if reinterpreted > 0:
            return constraints.independent(domain, reinterpreted)
        return domain

    @property
    def codomain(self) -> constraints.Constraint:
        codomain = self.transforms[-1].codomain
        reinterpreted = self.codomain_dim - codomain.event_dim
        if reinterpreted > 0:
            return constraints.independent(codomain, reinterpreted)
        return codomain

    @property
    def bijective(self) -> bool:
        return all(t.bijective for t in self.transforms)

    def _call(self, x: Tensor) -> Tensor:
        for t in self.transforms:
            x = t(x)
        return x

    @property
    def inv(self) -> Transform:
        new = self.__new__(ComposedTransform)
        new.transforms = [t.inv for t in reversed(self.transforms)]
        new.domain_dim = self.codomain_dim
        new.codomain_dim = self.domain_dim
        Transform.__init__(new)
        return new

    def _inverse(self, y: Tensor) -> Tensor:
        for t in reversed(self.transforms):
            y = t.inv(y)
        return y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        _, ladj = self.call_and_ladj(x)
        return ladj

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        event_dim = self.domain_dim
        acc = 0
        for t in self.transforms:
            x, ladj = t.call_and_ladj(x)
            acc = acc + _sum_rightmost(ladj, event_dim - t.domain.event_dim)
            event_dim += t.codomain.event_dim - t.domain.event_dim
        return x, acc

    def forward_shape(self, shape: Size) -> Size:
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Size) -> Size:
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape

    # ──────────────────────────────────────────────────────────────────
    # Optional compiled fused (points, log|det J|) fast paths
    # ──────────────────────────────────────────────────────────────────

    def enable_for_ladj(self, mode: str = "reduce-overhead") -> ComposedTransform:
        """Compile a fast ``.for_ladj(x) == self.call_and_ladj(x)`` path.

        Opt-in torch.compile fast path (mirrors Potential.enable_grad)
        returning the fused forward image and its log|det J|, i.e. (y, ladj).
        Returns self so the call can be chained:
            F = flow.t().enable_for_ladj()
            y, ladj = F.for_ladj(x)

        In-place parameter updates (`optimizer.step()`, `load_state_dict()`,
        `zeros()`) are reflected automatically — this transform re-reads the
        flow's parameter tensors on every call. **Not idempotent**: each call
        recompiles against the current transform, so after the parameters are
        *reallocated* (a `.to(device)` / dtype move, swapped submodule, or
        rebuilt flow) fetch a fresh `flow.t()` and enable on that (or re-call
        this — each call pays the torch.compile cost).

        Argument:
            mode: passed to torch.compile. 'reduce-overhead' (default) captures
                a CUDA graph on first call; 'default' for varying batch shape /
                tight VRAM; 'max-autotune' for extra kernel tuning.
        """
        self._for_ladj_fn = torch.compile(lambda x: self.call_and_ladj(x), mode=mode)
        return self

    def for_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """Compiled forward + Jacobian: returns ``self.call_and_ladj(x)``.

        Input:
            x: Tensor [N, d]   points in the domain
        Output:
            y:    Tensor [N, d]   images in the codomain
            ladj: Tensor [N]      log|det J(x)|
        Raises RuntimeError if .enable_for_ladj() has not been called.
        """
        if self._for_ladj_fn is None:
            raise RuntimeError(
                "ComposedTransform.for_ladj() requires .enable_for_ladj() first."
            )
        return self._for_ladj_fn(x)

    def enable_inv_ladj(self, mode: str = "reduce-overhead") -> ComposedTransform:
        """Compile a fast ``.inv_ladj(x) == self.inv.call_and_ladj(x)`` path.

        Like `enable_for_ladj` but for the inverse map: returns the fused
        pre-image and the inverse map's log|det J|, i.e. (x_pre, ladj) where
        `ladj == log|det J_{T^-1}(x)| == -log|det J_T(x_pre)|`. Same
        non-idempotent / capture-and-refresh semantics as `enable_for_ladj`.
            F = flow.t().enable_inv_ladj()
            x_pre, ladj = F.inv_ladj(y)
        """
        self._inv_ladj_fn = torch.compile(lambda x: self.inv.call_and_ladj(x), mode=mode)
        return self

    def inv_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """Compiled inverse + Jacobian: returns ``self.inv.call_and_ladj(x)``.

        Input:
            x: Tensor [N, d]   points in the codomain
        Output:
            x_pre: Tensor [N, d]   pre-images in the domain
            ladj:  Tensor [N]      log|det J_{T^-1}(x)| (= -log|det J_T(x_pre)|)
        Raises RuntimeError if .enable_inv_ladj() has not been called.
        """
        if self._inv_ladj_fn is None:
            raise RuntimeError(
                "ComposedTransform.inv_ladj() requires .enable_inv_ladj() first."
            )
        return self._inv_ladj_fn(x)


class DependentTransform(Transform):
    """Treat the last `reinterpreted` dims of base as dependent.

    Optimised counterpart to torch's IndependentTransform.
    """

    def __init__(self, base: Transform, reinterpreted: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.base = base
        self.reinterpreted = reinterpreted

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.base}, {self.reinterpreted})"

    @property
    def domain(self) -> constraints.Constraint:
        return constraints.independent(self.base.domain, self.reinterpreted)

    @property
    def codomain(self) -> constraints.Constraint:
        return constraints.independent(self.base.codomain, self.reinterpreted)

    @property
    def bijective(self) -> bool:
        return self.base.bijective

    def _call(self, x: Tensor) -> Tensor:
        return self.base(x)

    @property
    def inv(self) -> Transform:
        return DependentTransform(self.base.inv, self.reinterpreted)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.base.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        ladj = self.base.log_abs_det_jacobian(x, y)
        return _sum_rightmost(ladj, self.reinterpreted)

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        y, ladj = self.base.call_and_ladj(x)
        ladj = _sum_rightmost(ladj, self.reinterpreted)
        return y, ladj

    def forward_shape(self, shape: Size) -> Size:
        return self.base.forward_shape(shape)

    def inverse_shape(self, shape: Size) -> Size:
        return self.base.inverse_shape(shape)


class IdentityTransform(Transform):
    """f(x) = x."""

    domain = constraints.real
    codomain = constraints.real
    bijective = True
    sign = +1

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, IdentityTransform)

    def _call(self, x: Tensor) -> Tensor:
        return x

    def _inverse(self, y: Tensor) -> Tensor:
        return y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return torch.zeros_like(x)


class AdditiveTransform(Transform):
    """f(x) = x + shift.

    Used by NSF/NCSF to translate the box [a, b]^d to the per-coord
    centred box [-half, half]^d (and back). shift is typically a (d,)
    tensor; broadcasting with `x` of shape (..., d) is automatic.
    """

    domain = constraints.real
    codomain = constraints.real
    bijective = True
    sign = +1

    def __init__(self, shift: Tensor, **kwargs) -> None:
        super().__init__(**kwargs)
        self.shift = shift

    def _call(self, x: Tensor) -> Tensor:
        return x + self.shift

    def _inverse(self, y: Tensor) -> Tensor:
        return y - self.shift

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return torch.zeros_like(x)


# ──────────────────────────────────────────────────────────────────────
# MonotonicAffineTransform  — used as default univariate in MAF
# ──────────────────────────────────────────────────────────────────────

class MonotonicAffineTransform(Transform):
    """f(x) = exp(a) * x + b with a clamped to [log(slope), -log(slope)].

    Default univariate transform inside autoregressive / coupling flows.
    """

    domain = constraints.real
    codomain = constraints.real
    bijective = True
    sign = +1

    def __init__(
        self,
        shift: Tensor,
        scale: Tensor,
        slope: float = 1e-3,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.shift = shift
        self.log_scale = scale / (1 + abs(scale / math.log(slope)))
        self.scale = self.log_scale.exp()

    def _call(self, x: Tensor) -> Tensor:
        return x * self.scale + self.shift

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.shift) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.log_scale.expand(x.shape)


# ──────────────────────────────────────────────────────────────────────
# MonotonicRQSTransform  — knots on per-coord [-bound, bound]
# ──────────────────────────────────────────────────────────────────────

class MonotonicRQSTransform(Transform):
    """Monotonic rational-quadratic spline on per-coord [-bound, bound].

    Reference:
        Neural Spline Flows (Durkan et al., 2019) — https://arxiv.org/abs/1906.04032

    `bound` may be a scalar (zuko default) or a tensor of shape (..., d)
    broadcastable to widths.shape[:-1]. With a per-coord (d,) tensor,
    each coordinate's knots span [-bound_i, bound_i] independently —
    this is what NSF / NCSF use to avoid the affine scaling sandwich.

    Arguments:
        widths:      unconstrained bin widths,      shape (..., K)
        heights:     unconstrained bin heights,     shape (..., K)
        derivatives: unconstrained knot slopes,     shape (..., K - 1)
        bound:       (co)domain bound; scalar or shape (..., 1) / (..., d).
        slope:       lower-bound on every segment's slope (numeric stability).
    """

    domain = constraints.real
    codomain = constraints.real
    bijective = True
    sign = +1

    def __init__(
        self,
        widths: Tensor,
        heights: Tensor,
        derivatives: Tensor,
        bound: Tensor | float = 1.0,
        slope: float = 1e-3,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)

        widths = widths / (1 + abs(2 * widths / math.log(slope)))
        heights = heights / (1 + abs(2 * heights / math.log(slope)))
        derivatives = derivatives / (1 + abs(derivatives / math.log(slope)))

        widths = F.pad(F.softmax(widths, dim=-1), (1, 0), value=0)
        heights = F.pad(F.softmax(heights, dim=-1), (1, 0), value=0)
        derivatives = F.pad(derivatives, (1, 1), value=0)

        # Per-coord bound broadcast: append a knot-index dim to `bound`
        # so it lines up with widths/heights' last dim.
        B = bound[..., None] if torch.is_tensor(bound) else bound

        self.horizontal = B * (2 * torch.cumsum(widths, dim=-1) - 1)
        self.vertical = B * (2 * torch.cumsum(heights, dim=-1) - 1)
        self.derivatives = torch.exp(derivatives)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(bins={self.bins})"

    @property
    def bins(self) -> int:
        return self.horizontal.shape[-1] - 1

    def bin(self, k: LongTensor) -> tuple[Tensor, ...]:
        mask = torch.logical_and(0 <= k, k < self.bins)

        k = k % self.bins
        k0_k1 = torch.stack((k, k + 1))

        k0_k1, hs, vs, ds = broadcast(
            k0_k1[..., None],
            self.horizontal,
            self.vertical,
            self.derivatives,
            ignore=1,
        )

        x0, x1 = hs.gather(-1, k0_k1).squeeze(dim=-1)
        y0, y1 = vs.gather(-1, k0_k1).squeeze(dim=-1)
        d0, d1 = ds.gather(-1, k0_k1).squeeze(dim=-1)

        s = (y1 - y0) / (x1 - x0)
        return mask, x0, x1, y0, y1, d0, d1, s

    @staticmethod
    def searchsorted(seq: Tensor, value: Tensor) -> LongTensor:
        return torch.sum(seq < value[..., None], dim=-1)

    def _call(self, x: Tensor) -> Tensor:
        k = self.searchsorted(self.horizontal, x) - 1
        mask, x0, x1, y0, y1, d0, d1, s = self.bin(k)

        z = mask * (x - x0) / (x1 - x0)
        y = y0 + (y1 - y0) * (s * z**2 + d0 * z * (1 - z)) / (
            s + (d0 + d1 - 2 * s) * z * (1 - z)
        )
        return torch.where(mask, y, x)

    def _inverse(self, y: Tensor) -> Tensor:
        k = self.searchsorted(self.vertical, y) - 1
        mask, x0, x1, y0, y1, d0, d1, s = self.bin(k)

        y_ = mask * (y - y0)
        a = (y1 - y0) * (s - d0) + y_ * (d0 + d1 - 2 * s)
        b = (y1 - y0) * d0 - y_ * (d0 + d1 - 2 * s)
        c = -s * y_

        z = 2 * c / (-b - (b**2 - 4 * a * c).sqrt())
        x = x0 + z * (x1 - x0)
        return torch.where(mask, x, y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        _, ladj = self.call_and_ladj(x)
        return ladj

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        k = self.searchsorted(self.horizontal, x) - 1
        mask, x0, x1, y0, y1, d0, d1, s = self.bin(k)

        z = mask * (x - x0) / (x1 - x0)
        y = y0 + (y1 - y0) * (s * z**2 + d0 * z * (1 - z)) / (
            s + (d0 + d1 - 2 * s) * z * (1 - z)
        )

        jacobian = (
            s**2
            * (2 * s * z * (1 - z) + d0 * (1 - z) ** 2 + d1 * z**2)
            / (s + (d0 + d1 - 2 * s) * z * (1 - z)) ** 2
        )
        return torch.where(mask, y, x), mask * jacobian.log()


# ──────────────────────────────────────────────────────────────────────
# CircularShiftTransform  — wrap-around on per-coord [-bound, bound]
# ──────────────────────────────────────────────────────────────────────

class CircularShiftTransform(Transform):
    """Circular shift bijection on per-coord [-bound, bound].

    f(x) = ((x + bound) mod 2*bound) - bound

    `bound` may be a scalar (zuko default) or a tensor broadcastable
    with the last dim of x; with `bound: (d,)`, each coordinate wraps
    on its own period 2*bound_i.

    Note: domain/codomain are declared `constraints.real` (rather than
    `constraints.interval(-B, B)`) because per-coord intervals can't be
    expressed as a single `constraints.Constraint`. The bijection is
    still identity-modulo-period on each coordinate.
    """

    bijective = True

    def __init__(self, bound: Tensor | float = 1.0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.bound = bound
        self.domain = constraints.real
        self.codomain = constraints.real

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(bound={self.bound})"

    def _call(self, x: Tensor) -> Tensor:
        return torch.remainder(x + self.bound, 2 * self.bound) - self.bound

    def _inverse(self, y: Tensor) -> Tensor:
        return torch.remainder(y + self.bound, 2 * self.bound) - self.bound

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return torch.zeros_like(x)


# ──────────────────────────────────────────────────────────────────────
# AutoregressiveTransform / CouplingTransform / FreeFormJacobianTransform
# ──────────────────────────────────────────────────────────────────────

class AutoregressiveTransform(Transform):
    """y_i = f(x_i | x_<i) — autoregressive scheme.

    `meta(x)` returns a univariate Transform whose parameters depend
    autoregressively on x via a masked MLP.
    """

    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(
        self,
        meta: Callable[[Tensor], Transform],
        passes: int,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.meta = meta
        self.passes = passes

    def _call(self, x: Tensor) -> Tensor:
        return self.meta(x)(x)

    def _inverse(self, y: Tensor) -> Tensor:
        x = torch.zeros_like(y)
        for _ in range(self.passes):
            x = self.meta(x).inv(y)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.meta(x).log_abs_det_jacobian(x, y)

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return self.meta(x).call_and_ladj(x)


class CouplingTransform(Transform):
    """y_a = x_a, y_b = f(x_b | x_a) — coupling scheme.

    mask: boolean vector; True = "kept" (x_a), False = "transformed" (x_b).
    """

    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(
        self,
        meta: Callable[[Tensor], Transform],
        mask: BoolTensor,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.meta = meta
        self.idx_a = mask.nonzero().squeeze(-1)
        self.idx_b = (~mask).nonzero().squeeze(-1)

    def split(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return x[..., self.idx_a], x[..., self.idx_b]

    def merge(self, x_a: Tensor, x_b: Tensor, shape: Size) -> Tensor:
        x = x_a.new_empty(shape)
        x[..., self.idx_a] = x_a
        x[..., self.idx_b] = x_b
        return x

    def _call(self, x: Tensor) -> Tensor:
        x_a, x_b = self.split(x)
        y_b = self.meta(x_a)(x_b)
        return self.merge(x_a, y_b, x.shape)

    def _inverse(self, y: Tensor) -> Tensor:
        y_a, y_b = self.split(y)
        x_b = self.meta(y_a).inv(y_b)
        return self.merge(y_a, x_b, y.shape)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        x_a, x_b = self.split(x)
        _, y_b = self.split(y)
        return self.meta(x_a).log_abs_det_jacobian(x_b, y_b)

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x_a, x_b = self.split(x)
        y_b, ladj = self.meta(x_a).call_and_ladj(x_b)
        y = self.merge(x_a, y_b, x.shape)
        return y, ladj


class FreeFormJacobianTransform(Transform):
    """FFJORD continuous-time bijection: dx/dt = f_phi(t, x).

    `exact=True`  → exact log|det J| via O(d) augmented ODE.
    `exact=False` → Hutchinson trace estimator (stochastic, biased grads).

    Integration is fixed-step RK4 (`rk4_fixed`), unrolled under the ambient
    autograd tape: parameter gradients flow through the unrolled trajectory
    directly, so there is no `phi` / adjoint plumbing and no `atol`/`rtol`.
    The augmented `(x, ladj)` state is packed into one tensor (ladj as a
    trailing column) so the same single-tensor `rk4_fixed` serves here and in
    `OTFlowTransform`.

    Arguments:
        f:     drift `f(t, x)` returning `dx/dt` with the shape of `x`.
        t0:    trajectory start time.
        t1:    trajectory end time.
        nt:    number of fixed RK4 steps.
        exact: if True, the log-det uses the exact O(d) batched-Jacobian
            trace; if False, a Hutchinson stochastic estimate.
    """

    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(
        self,
        f: Callable[[Tensor, Tensor], Tensor],
        t0: float | Tensor = 0.0,
        t1: float | Tensor = 1.0,
        nt: int = 8,
        exact: bool = True,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.f = f
        self.t0 = t0
        self.t1 = t1
        self.nt = nt
        self.exact = exact

    def _call(self, x: Tensor) -> Tensor:
        return rk4_fixed(self.f, x, self.t0, self.t1, self.nt)

    @property
    def inv(self) -> Transform:
        return FreeFormJacobianTransform(
            f=self.f,
            t0=self.t1,
            t1=self.t0,
            nt=self.nt,
            exact=self.exact,
        )

    def _inverse(self, y: Tensor) -> Tensor:
        return rk4_fixed(self.f, y, self.t1, self.t0, self.nt)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        _, ladj = self.call_and_ladj(x)
        return ladj

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        d = x.shape[-1]
        # Build the graph for the trace term iff we will backprop (training);
        # under torch.no_grad() (eval) this is False and stays cheap.
        create_graph = torch.is_grad_enabled()

        if self.exact:
            I = torch.eye(d, dtype=x.dtype, device=x.device)
            I = I.expand(*x.shape, -1).movedim(-1, 0)
        else:
            eps = torch.randn_like(x)

        def f_aug(t: Tensor, z: Tensor) -> Tensor:
            xs = z[..., :d]
            with torch.enable_grad():
                xs = xs.clone().requires_grad_()
                dx = self.f(t, xs)
            if self.exact:
                jacobian = torch.autograd.grad(
                    dx, xs, I, create_graph=create_graph, is_grads_batched=True
                )[0]
                trace = torch.einsum("i...i", jacobian)
            else:
                epsjp = torch.autograd.grad(dx, xs, eps, create_graph=create_graph)[0]
                trace = (epsjp * eps).sum(dim=-1)
            return torch.cat([dx, trace.unsqueeze(-1)], dim=-1)

        z0 = torch.cat([x, x.new_zeros(*x.shape[:-1], 1)], dim=-1)
        zT = rk4_fixed(f_aug, z0, self.t0, self.t1, self.nt)
        return zT[..., :d], zT[..., d]


# ──────────────────────────────────────────────────────────────────────
# Linear mixing transforms on R^d (Glow-style 1x1 invertible "conv")
# ──────────────────────────────────────────────────────────────────────

class RotationTransform(Transform):
    r"""Rotation `f(x) = R x` with `R = exp(A - A^T)` orthogonal.

    Because `A - A^T` is skew-symmetric, the matrix exponential is
    orthogonal, so the transform is volume-preserving and its
    log-abs-determinant is identically zero.

    `A` is stored by reference (NOT eagerly mapped to `R`) so that
    downstream in-place updates to the underlying `nn.Parameter` —
    typically `optimizer.step()` — are picked up on the next forward
    without the caller having to rebuild the transform. This mirrors
    the lazy-read behaviour of `AutoregressiveTransform.meta` and is
    what makes the `loss_compile` capture-once contract work for
    `LinearMixingTransform`.

    Arguments:
        A: square matrix `A`, with shape `(*, D, D)`.
    """

    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    def __init__(self, A: Tensor, **kwargs) -> None:
        super().__init__(**kwargs)
        self.A = A  # reference, not the eager exp(A - A^T)

    @property
    def R(self) -> Tensor:
        return torch.linalg.matrix_exp(self.A - self.A.mT)

    def _call(self, x: Tensor) -> Tensor:
        return torch.einsum("...ij,...j->...i", self.R, x)

    def _inverse(self, y: Tensor) -> Tensor:
        return torch.einsum("...ij,...i->...j", self.R, y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return torch.zeros_like(x[..., 0])

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        # Compute R once and share between y and ladj — this is the path
        # ComposedTransform.call_and_ladj takes during training, so the
        # matrix exponential runs exactly once per forward step.
        R = torch.linalg.matrix_exp(self.A - self.A.mT)
        y = torch.einsum("...ij,...j->...i", R, x)
        ladj = torch.zeros_like(x[..., 0])
        return y, ladj


class LULinearTransform(Transform):
    r"""Linear map `f(x) = L U x` with LU decomposition.

    `L` is the lower-triangular part of the input matrix (diagonal
    included, providing `log|det|`); `U` is the strict upper-triangular
    part plus the identity (unit diagonal), so the forward is a single
    `L @ U @ x` and the log-abs-determinant is `sum(log|diag(L)|)`.

    `LU` is stored by reference (NOT eagerly split into `L` / `U`) so
    that downstream in-place updates to the underlying `nn.Parameter`
    are picked up on the next forward; same lazy-read contract as
    `RotationTransform`.

    Numerical safety: `log|det| = sum log|diag(L)|` diverges to `-inf`
    if any diagonal entry crosses zero during training (nothing in the
    parameterisation keeps `diag(L)` away from the origin). The log is
    therefore computed on `|diag|` clamped to a small floor `_LADJ_EPS`,
    so a near-singular `L` produces a large-but-finite negative ladj
    with a saturated zero gradient on the affected entries — preventing
    the loss from exploding to NaN. For a principled fix that also
    yields well-conditioned gradients near zero, re-parameterise the
    diagonal as `sign(s0) * exp(log_s)` (Glow-style) — that would
    change the `state_dict` layout and is deferred to a future major
    release.

    Arguments:
        LU: matrix whose lower / upper triangular parts hold the non-zero
            elements of `L` and `U`, with shape `(*, D, D)`.
    """

    domain = constraints.real_vector
    codomain = constraints.real_vector
    bijective = True

    # Floor for |diag(L)| inside the log to avoid -inf / NaN ladj when the
    # learnable LU diagonal crosses zero. log(1e-12) ≈ -27.6, so the
    # per-entry penalty stays large but finite; gradient w.r.t. the
    # diagonal saturates to 0 in the clamped region.
    _LADJ_EPS = 1e-12

    def __init__(self, LU: Tensor, **kwargs) -> None:
        super().__init__(**kwargs)
        self.LU = LU  # reference, not the eager tril / triu split

    @property
    def L(self) -> Tensor:
        return torch.tril(self.LU)

    @property
    def U(self) -> Tensor:
        I = torch.eye(self.LU.shape[-1], dtype=self.LU.dtype, device=self.LU.device)
        return torch.triu(self.LU, diagonal=1) + I

    def _call(self, x: Tensor) -> Tensor:
        return torch.einsum("...ij,...j->...i", self.L @ self.U, x)

    def _inverse(self, y: Tensor) -> Tensor:
        return torch.linalg.solve_triangular(
            self.U,
            torch.linalg.solve_triangular(
                self.L,
                y.unsqueeze(-1),
                upper=False,
                unitriangular=False,
            ),
            upper=True,
            unitriangular=True,
        ).squeeze(-1)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        diag = torch.diagonal(self.L, dim1=-1, dim2=-2)
        ladj = diag.abs().clamp_min(self._LADJ_EPS).log().sum(dim=-1)
        return ladj.expand_as(x[..., 0])

    def call_and_ladj(self, x: Tensor) -> tuple[Tensor, Tensor]:
        # Compute L and U once and share — ComposedTransform.call_and_ladj
        # routes through here on the training hot path.
        I = torch.eye(self.LU.shape[-1], dtype=self.LU.dtype, device=self.LU.device)
        L = torch.tril(self.LU)
        U = torch.triu(self.LU, diagonal=1) + I
        y = torch.einsum("...ij,...j->...i", L @ U, x)
        diag = torch.diagonal(L, dim1=-1, dim2=-2)
        ladj = diag.abs().clamp_min(self._LADJ_EPS).log().sum(dim=-1).expand_as(x[..., 0])
        return y, ladj
