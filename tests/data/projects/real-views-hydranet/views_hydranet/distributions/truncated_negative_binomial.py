"""TruncatedNBFamily — the per-cell ZERO-TRUNCATED negative-binomial body (ADR-067; #258 fix).

The occurrence/magnitude split done right. The ~99.7%-zero conflict grid is modelled by an
EXTERNAL classification gate (occurrence) composed with a positive-count *body* (magnitude). Every
prior body — ``nb``, ``zinb``'s bare core, the mixture — can itself draw a 0, so under
``soft_gate`` the sample path ``Bernoulli(gate) · body`` suppresses activation TWICE (double-zero
that collapses the 36-step rollout: views-hydranet#258). This family removes the body's own zero
mass: it is the NB conditioned on ``Y>0``, so the **gate is the only zero source**.

Per-cell law (Cragg 1971 / Mullahy 1986 zero-truncated NB, same parameterisation as ``NBCore``):
    P(Y=y | Y>0) = NB(y; mu, theta) / (1 - NB(0)),   y = 1, 2, ...   (0 has probability 0)
    E[Y | Y>0]   = mu / (1 - NB(0))                                  (the magnitude the head emits)
    P(Y>0)       = 1  (degenerate — the body NEVER draws 0; occurrence belongs to the gate)

It COMPOSES the shared ``NBCore`` (has-a) and is **NOT self-zeroed** (``self_zeroed = False``): it
stays OUT of ``SELF_ZEROED_FAMILIES`` and is gated exactly like ``nb`` (``mean`` is E[Y|Y>0], the
*conditional* magnitude, which ``compose_mean`` multiplies by the gate — NOT the full forecast).

Contract note (deliberate deviation): unlike ``nb``/``zinb``/``mixture_nb`` whose ``nll`` is a mean
over ALL cells, this family's likelihood is defined ONLY on ``y>0``, so ``nll`` reduces over the
positive cells (folding a ``y>0`` mask into the weight). Correctness therefore does NOT depend on
the caller supplying ``body_supervision='active'`` — the mask is applied inside the family.
"""

from __future__ import annotations

import logging

import torch

from views_hydranet.distributions.base import DistributionFamily
from views_hydranet.distributions.nb_core import (
    NBCore,
    check_param_target_shape,
    inverse_softplus,
    weighted_nll_mean,
)
from views_hydranet.utils.count_target_bridge import to_raw_counts

logger = logging.getLogger(__name__)

_EPS = 1e-6  # shared boundary guard (matches NBCore._EPS): clamps 1-NB(0) away from 0 for log/÷.

#: Max rejection rounds for the MODERATE-mu region of the zero-truncated sampler (see ``sample``).
#: Preflight (2026-08-13): zero-free everywhere; sample-mean bias <1% over the realistic (mu,theta)
#: range, ~4% only in the heavy-overdispersion / small-mu corner. The emitted forecast uses the
#: CLOSED-FORM ``mean`` (E[Y|Y>0]) — the sampler feeds only the cube — so any residual bias never
#: touches the point forecast.
_MAX_REJECT_ROUNDS = 128

#: ⛔ #441: this threshold selects the floor-to-1 branch, and the premise it was chosen for
#: (``E[Y|Y>0] -> 1``) does not hold when ``theta`` is also small. The correct predicate is
#: ``mu/(1-p0) < 1 + tol``, not ``p0 > _MODERATE_P0``. See ``sample``'s docstring.
#: PERF (2026-08-14): cells with ``P(Y=0) > _MODERATE_P0`` are the mu->0 background (the ~99%-zero
#: conflict grid), where ``E[Y|Y>0] -> 1`` so a residual zero floors to 1 EXACTLY — rejection there
#: is pointless and O(rounds × whole-grid) (~112 s/call at 180×180, the #258 emit blocker). So we
#: rejection-redraw ONLY the moderate-mu zeros (a small subset), scatter-style, and floor the rest.
_MODERATE_P0 = 0.95


class TruncatedNBFamily(DistributionFamily):
    """Per-cell zero-truncated NB body: params ``[..., 2]`` = ``(mu, theta)`` in natural space."""

    needs_latent = False
    #: NOT self-zeroed — the body produces NO zeros; an EXTERNAL gate (soft_gate) owns occurrence.
    self_zeroed = False

    @property
    def n_params(self) -> int:
        return 2

    def activate(self, raw: "torch.Tensor") -> "torch.Tensor":
        """softplus both channels -> strictly-positive ``(mu, theta)``, same shape (as ``nb``)."""
        if raw.shape[-1] != self.n_params:
            raise ValueError(
                f"activate expects {self.n_params} channels in the last dim, got {raw.shape[-1]}."
            )
        return torch.nn.functional.softplus(raw)

    def _split(self, params: "torch.Tensor") -> tuple["torch.Tensor", "torch.Tensor"]:
        return params[..., 0], params[..., 1]

    def __init__(self, *, body_nll_denominator: str = "positives") -> None:
        """``body_nll_denominator`` selects the NLL denominator (glossary §3b).

        ``"positives"`` (the default, and every pre-2026-10 config) divides by the count of ``y>0``
        cells. ``"all_cells"`` divides by every supervised cell, which is the denominator the JOINT
        HURDLE NLL has — see ``nll`` and ``reports/2026-10-15_loss_balance_prereg.md``.

        Only the training-loss construction passes this (``utils.choose_loss``); the
        emit-time family is built without it, because a reduction has no role in drawing a sample.
        """
        super().__init__()
        valid = ("positives", "all_cells")
        if body_nll_denominator not in valid:
            err_msg = (
                f"body_nll_denominator={body_nll_denominator!r} is not valid. "
                f"Expected one of: {', '.join(valid)}."
            )
            logger.error(err_msg)
            raise ValueError(err_msg)
        self.body_nll_denominator = body_nll_denominator

    def nll(
        self,
        params: "torch.Tensor",
        target: "torch.Tensor",
        *,
        weight: "torch.Tensor | None" = None,
    ) -> "torch.Tensor":
        """Mean zero-truncated NB negative log-likelihood over the positive cells.

        ``log P(Y=y | Y>0) = log NB(y) - log(1 - NB(0))``. The NUMERATOR is always the sum over
        ``y>0`` — zero cells have no truncated likelihood. What ``body_nll_denominator`` selects is
        the DENOMINATOR:

        * ``"positives"`` — divide by the count of ``y>0`` cells. ``weight=None`` therefore means
          "mean over the positives", not "mean over the whole grid". This is the historical
          behaviour and the guarantee pinned by
          ``tests/distributions/test_truncated_negative_binomial.py:104-126``.
        * ``"all_cells"`` — divide by every supervised cell (all of them when ``weight is None``).
          This is the body term of the **joint hurdle NLL**: writing that likelihood out gives
          ``sum over positives / N``, commensurate with the gate's mean over the same ``N``. It
          also replaces a RANDOM denominator with a fixed one — at a 1-in-222 positive rate the
          positive count per step is often 0 or 1, so ``E[Σ/N_pos] != E[Σ]/E[N_pos]`` and the
          ``"positives"`` gradient is biased and high-variance (prereg §0, Amendment 1 §5).

        A caller ``weight`` (e.g. an active-cell mask) is multiplied onto the ``y>0`` mask for the
        numerator, and under ``"all_cells"`` it is also what defines "supervised" in the
        denominator. No positive cells -> a graph-connected ``0`` loss under either setting.

        ⚠️ The "commensurate with the gate" claim is exact only when the gate reduces over the
        same cells. With ``cls_valid_mask`` configured the gate divides by land cells while this
        divides by the full grid (``weight=None``), so the two task terms are then off by the land
        fraction and the rebalance is partial. Pass the same valid mask as ``weight`` if that
        matters. Found by /code-review on PR #398.
        """
        mu, theta = self._split(params)
        counts = to_raw_counts(target)
        check_param_target_shape(counts, mu)
        positive = counts > 0
        log_py = NBCore.log_prob(mu, theta, counts)
        # log(1 - NB(0)) via the C-212-stable log_prob_zero and -expm1 (avoids the small-mu
        # cancellation of 1 - (theta/(theta+mu))**theta, C-201); clamp_min guards log(0).
        p_pos = (-torch.expm1(NBCore.log_prob_zero(mu, theta))).clamp_min(_EPS)
        nll_per_cell = -(log_py - torch.log(p_pos))
        # Restrict to y>0: torch.where keeps zero cells OUT of the backward graph (their term is
        # never differentiated), and the y>0 weight makes the denominator the positive-cell count.
        nll_per_cell = torch.where(positive, nll_per_cell, torch.zeros_like(nll_per_cell))
        pos_weight = positive.to(nll_per_cell.dtype)
        if weight is not None:
            pos_weight = pos_weight * torch.broadcast_to(weight.to(nll_per_cell), pos_weight.shape)
        if self.body_nll_denominator == "all_cells":
            # `nll_per_cell` is already zeroed outside y>0, so the numerator is unchanged; passing
            # the SUPERVISED mask (not the positive mask) moves the denominator to the cell count.
            return weighted_nll_mean(nll_per_cell, weight)
        return weighted_nll_mean(nll_per_cell, pos_weight)

    def sample(
        self,
        params: "torch.Tensor",
        k: int,
        generator: "torch.Generator | None" = None,
    ) -> "torch.Tensor":
        """Draw ``k`` counts per cell from ``NB(mu, theta) | Y>0`` -> ``[..., k]``, never 0.

        Two-regime rejection (PERF, 2026-08-14): zeros in the ``P(Y=0) > _MODERATE_P0`` background
        floor to 1 EXACTLY — no rejection. Only the MODERATE-mu zeros are rejection-redrawn,
        scatter-style (cost scales with that small subset, not the whole grid — the flat full-grid
        loop was ~112 s/call at 180×180, the #258 emit blocker). Deterministic under ``generator``
        (same seed+params -> same draws -> same indices -> same output; C-3, the S2 #121 gate).

        ⛔ **THE FAST PATH IS KNOWN-WRONG IN ONE REGIME — see #441, and do not trust this sampler's
        mean there.** Its justification used to read *"the mu->0 background has E[Y|Y>0] -> 1"*.
        That is true as ``mu -> 0`` at **FIXED theta** and FALSE when ``theta -> 0`` alongside it,
        which is what a body fitted to a 99.7%-zero target does: ``E[Y|Y>0] = mu/(1-p0)`` stays
        large when both shrink together. Measured on the delivered ``nb`` control
        (median ``theta`` 3.6e-06): **99.05%** of cells are in this branch, the analytic
        ``E[Y|Y>0]`` there is **35.1**, and this method returns **1.02** — a **54x** gap, against
        an earlier claim of "<1% ... ~4% in the small-mu corner". The share of that background
        where the premise actually holds is **0.00%**.

        ⚠️ A delivered ``truncated_nb``-TRAINED model (``theta`` ~0.044) hits the branch on ~0.31%
        of cells, so the exposure is small today. An ``nb`` body emitted truncated (ADR-073) would
        hit it on 99%. ``mean()`` below is CORRECT; it is this method that disagrees with it, and
        ``test_the_sampler_agrees_with_the_family_s_own_mean`` is a strict xfail pinning that.

        ⛔ Not fixed here because there is no cheap exact alternative: ``torch.distributions.
        NegativeBinomial`` raises ``NotImplementedError`` for both ``cdf`` and ``icdf``, rejection
        does not terminate when ``p0 -> 1``, and the Gamma-Poisson tilt has acceptance ``1-p0``.
        Replacing one approximation with another invented on the spot is what produced this."""
        mu, theta = self._split(params)
        out = NBCore.sample(mu, theta, k, generator)
        p0 = NBCore.prob_zero(mu, theta).unsqueeze(-1).expand_as(out)  # [*cells, k]
        mu_e = mu.unsqueeze(-1).expand_as(out)
        theta_e = theta.unsqueeze(-1).expand_as(out)
        for _ in range(_MAX_REJECT_ROUNDS):
            redo = (out == 0) & (p0 <= _MODERATE_P0)  # moderate-mu zeros only
            idx = redo.nonzero(as_tuple=True)
            if idx[0].numel() == 0:
                break
            out[idx] = NBCore.sample(mu_e[idx], theta_e[idx], 1, generator).reshape(-1)
        return out.clamp_min(1.0)  # floor residual (mu->0 background + any leftover) -> Y>=1.

    def mean(self, params: "torch.Tensor") -> "torch.Tensor":
        """Per-cell conditional magnitude ``E[Y | Y>0] = mu / (1 - NB(0))``.

        This is the CONDITIONAL mean (body-only); ``compose_mean`` multiplies it by the gate to
        form the forecast (occurrence × magnitude). As ``mu -> 0`` the ratio -> 1 (the ``_EPS``
        clamp guards the 0/0 limit); ``1 - NB(0)`` via the stable ``-expm1(log_prob_zero)``."""
        mu, theta = self._split(params)
        p_pos = (-torch.expm1(NBCore.log_prob_zero(mu, theta))).clamp_min(_EPS)
        return mu / p_pos

    def prob_positive(self, params: "torch.Tensor") -> "torch.Tensor":
        """Per-cell ``P(Y>0) = 1`` — the body is structurally positive (the gate owns occurrence).

        Degenerate by construction: a zero-truncated law never emits 0. Returned as ``ones_like``
        so gate-metric scoring (C-201) sees the body's true (unit) positive probability."""
        mu, _theta = self._split(params)
        return torch.ones_like(mu)

    def initial_raw_bias(self, *, priors: "dict[str, float] | None" = None) -> "torch.Tensor":
        """Raw-space head bias ``[mu, theta]`` for informed init (C-199 / C-203) — same recipe as
        ``nb``: ``softplus(bias_theta) ~= priors['theta']`` (default 1.0) keeps the theta gradient
        live from step 0; ``mu`` starts at a small positive mean."""
        priors = priors or {}
        mu_bias = inverse_softplus(0.5)  # softplus(bias) = 0.5 -> a small positive starting mean
        theta_bias = inverse_softplus(float(priors.get("theta", 1.0)))
        return torch.tensor([mu_bias, theta_bias], dtype=torch.float32)
