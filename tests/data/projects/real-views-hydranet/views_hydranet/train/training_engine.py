"""
Training Engine: Pure training logic with no framework dependencies.

This module contains the core training functions extracted from train_model.py
per Uncle Bob's Dependency Rule: Entity-layer logic (gradient math, sequence
processing, curriculum orchestration) must not depend on Framework-layer
types (ModelPathManager, artifact I/O).

All functions here are importable and testable without views_pipeline_core.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import os
from typing import Any, cast

import numpy as np
import torch
import torch.nn as nn
from tqdm import tqdm

from views_hydranet.distributions import resolve_family
from views_hydranet.distributions.base import DistributionFamily
from views_hydranet.distributions.family_loss import FamilyLoss
from views_hydranet.infrastructure.reproducibility_gate import ReproducibilityGate
from views_hydranet.utils.body_supervision import (
    _active_window_mask as _resolve_active_window_mask,
)
from views_hydranet.utils.body_supervision import (
    event_threshold_from_config,
    resolve_body_supervision,
)
from views_hydranet.utils.curriculum import CurriculumLearner
from views_hydranet.utils.integrity_guardian import IntegrityGuardian
from views_hydranet.utils.quantile_head import QuantileLoss
from views_hydranet.utils.training_forensics import TrainingForensics
from views_hydranet.utils.utils import (
    choose_loss,
    choose_model,
    choose_scheduler,
    init_weights,
    train_log,
)
from views_hydranet.utils.utils_logging import log_curriculum_report
from views_hydranet.utils.visual_diagnostics import VisualDiagnostics
from views_hydranet.utils.volume_handler import VolumeHandler
from views_hydranet.utils.volume_sampler import VolumeSampler

logger = logging.getLogger(__name__)


def _init_classification_head_bias(model: nn.Module, bias_value: float) -> None:
    """
    Initialize classification decoder head biases to logit(event_rate).

    Autoresearch Finding F1: sigmoid(0) = 0.50 is a 25-71x overestimate of
    the true event rate on zero-inflated PRIO-GRID data. Initializing to
    logit(event_rate) provides 98.5% metric improvement.

    Targets layers named 'dec_conv4_head{N}_class' — the final output
    Conv2d of each classification decoder branch.
    """
    count = 0
    for name, module in model.named_modules():
        is_class_head = "dec_conv4" in name and "_class" in name
        has_bias = hasattr(module, "bias") and module.bias is not None
        if is_class_head and has_bias:
            nn.init.constant_(module.bias, bias_value)
            count += 1
            logger.debug(f"Classification head '{name}' bias → {bias_value:.2f}")

    sigmoid_val = 1.0 / (1.0 + math.exp(-bias_value))
    logger.info(
        f"Onset bias initialization: {count} classification heads set to {bias_value:.2f} "
        f"(sigmoid = {sigmoid_val:.4f}, i.e. {sigmoid_val * 100:.2f}% prior event probability)"
    )


def make(config: dict, device: torch.device):
    # C-119: re-seed immediately before construction/init so weight initialization draws from a
    # fixed RNG state — independent of any RNG consumed earlier in the pipeline between the
    # manager's lock and here (the cause of run-to-run init drift). Guarded so seedless callers
    # (some unit tests) are unaffected; production/determinism configs always carry the seeds.
    if config.get("np_seed") is not None:
        ReproducibilityGate.lock_entropy(
            np_seed=config["np_seed"], torch_seed=config.get("torch_seed")
        )
    model = choose_model(config, device)

    init_fn = functools.partial(init_weights, config=config)
    model.apply(init_fn)

    onset_bias = config.get("onset_bias_init")
    if onset_bias is not None:
        _init_classification_head_bias(model, onset_bias)

    criterion = choose_loss(config, device)
    optimizer, scheduler = choose_scheduler(config, model)

    # ADR-055: add learnable sigma parameters to the optimizer.
    # weight_decay=0.0: like the MultiTaskLoss log_vars below, the learnable
    # per-target log_sigma values are uncertainty estimates, not model weights —
    # weight decay would pull them back toward their initialization (same drag
    # that froze the balancer in C-111).
    criterion_reg = criterion[0]
    if isinstance(criterion_reg, dict):
        for loss_instance in criterion_reg.values():
            sigma_params = list(loss_instance.parameters())
            if sigma_params:
                optimizer.add_param_group({"params": sigma_params, "weight_decay": 0.0})

    # C-111: add the MultiTaskLoss balancer's log_vars to the optimizer so the
    # Kendall et al. (2018) homoscedastic uncertainty weighting can actually
    # learn. Without this, log_vars accumulate gradients but are never stepped,
    # so they stay frozen at their zero initialization and the balancer is inert.
    # weight_decay=0.0: log_vars are uncertainty estimates, not model weights —
    # decaying them toward zero defeats their purpose.
    #
    # C-113 bisect: freeze_multitask_balancer (default False) restores the
    # pre-C-111 behavior — log_vars stay frozen at zero (equal weighting), the
    # regime under which the model was stable for years. Used to test whether
    # C-111's active balancer is what destabilised training. See
    # reports/preanalysis_balancer_bisect.md.
    multitaskloss_instance = criterion[2]
    if config.get("freeze_multitask_balancer", False):
        logger.info(
            "C-113 bisect: MultiTaskLoss balancer FROZEN — log_vars excluded from "
            "the optimizer (pre-C-111 equal-weighting regime)."
        )
    else:
        log_var_params = list(multitaskloss_instance.parameters())
        if log_var_params:
            optimizer.add_param_group({"params": log_var_params, "weight_decay": 0.0})

    return (model, criterion, optimizer, scheduler)


class _SequenceIndices:
    """Pre-computed channel indices for the sequence loop (Zero Magic ADR 003)."""

    __slots__ = ("reg", "cls", "feat", "static", "n_reg", "n_cls", "reg_names", "cls_names")

    def __init__(self, feature_names: list[str], config: dict) -> None:
        reg_targets = config.get("regression_targets")
        cls_targets = config.get("classification_targets")
        input_features = config.get("features")
        static_channels = config.get("static_channels") or []  # ADR-060: input-only channels

        self.reg = [feature_names.index(t) for t in reg_targets]
        self.cls = [feature_names.index(t) for t in cls_targets]
        self.feat = [feature_names.index(f) for f in input_features]
        self.static = [feature_names.index(s) for s in static_channels]
        self.n_reg = len(reg_targets)
        self.n_cls = len(cls_targets)
        self.reg_names = reg_targets
        self.cls_names = cls_targets


@contextlib.contextmanager
def _batchnorm_eval(model: nn.Module):
    """Run a forward without letting it touch BatchNorm running statistics.

    ``model.eval()`` on the whole model would also disable dropout and change the forward; this
    flips only the ``_BatchNorm`` modules that are currently training, and restores exactly those.
    ``torch.no_grad()`` is NOT a substitute — it stops gradients, not buffer updates.

    Used by the pushforward auxiliary step (#289), whose extra forward would otherwise write
    self-fed, off-distribution activations into buffers that are saved with the artifact and
    recomputed by the C-184 BN recalibration.
    """
    flipped = [
        m
        for m in model.modules()
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.training
    ]
    for m in flipped:
        m.eval()
    try:
        yield
    finally:
        for m in flipped:
            m.train()


def _merge_fed_max(current: float | None, window_values: list[float] | None) -> float | None:
    """Fold one window's feedback-gradient norms into the lesson's running max.

    ``None`` means NOT MEASURED and is distinct from ``0.0``, which means measured-and-zero. The
    distinction is the whole point: the feedback wire is off on every roster config
    (``ss_backprop_through_feedback`` defaults False), so the sink stays empty, and the old
    ``0.0`` initialiser wrote a number indistinguishable from a wire that was on with a dead
    gradient. Four validator docstrings in `config_initializer` name that exact misreading.

    Extracted for one reason: both directions are then testable without driving a scheduled-
    sampling family run through `training_loop`, and the case that matters most —
    ``_merge_fed_max(None, [0.0]) == 0.0``, a genuine measured zero which must NOT be blanked —
    is otherwise unreachable from any test in the suite.
    """
    if not window_values:
        return current
    window_max = max(window_values)
    return window_max if current is None else max(current, window_max)


#: The fixed leading columns of the trajectory CSV. The per-task columns follow.
_TRAJECTORY_BASE_COLUMNS = [
    "lesson",
    "raw_grad_norm",
    "loss_reg",
    "loss_cls",
    "gate_logit_mean",
    "fed_grad_max",
]


def _trajectory_per_task_cells(lesson_per_task, n_cols: int, windows_per_lesson: int) -> list:
    """The per-task cells of one trajectory row: the lesson mean, or blanks of the right width.

    Two properties, both of which survived an independent guard audit as inline code because
    neither was reachable from the end-to-end test (PR #398):

    * **Width.** ``None`` (a lesson that produced no per-task vector) must still yield exactly
      ``n_cols`` cells, or the row sits under a wider header and the CSV goes ragged — which
      ``read_csv`` either rejects or silently column-shifts. Unreachable in a healthy run, which
      is precisely why it needs a unit test rather than an end-to-end one.
    * **Divisor.** The values are a per-lesson MEAN, so they divide by ``windows_per_lesson`` to
      stay commensurate with the ``loss_reg``/``loss_cls`` columns in the same row. Multiplying
      instead would put the per-task numbers out by ``windows_per_lesson**2`` against the pooled
      ones — the class of loss-scale error this instrumentation exists to diagnose, so it must
      not be introducible silently.
    """
    if lesson_per_task is None:
        return [""] * n_cols
    return list(lesson_per_task / windows_per_lesson)


def _trajectory_task_columns(config: dict) -> list[str]:
    """The per-task trajectory columns, in the order the balancer sums the tasks.

    Body targets then gate targets, which is the order ``losses_list`` is built in
    (``for j in range(idx.n_reg)`` then ``range(idx.n_cls)``) and therefore the order
    ``per_task`` arrives in. ``_SequenceIndices`` takes its names straight from these same two
    config lists, so config is the single source of truth for the order and no cross-check is
    possible — pinned instead by the identity test in
    ``tests/test_per_task_loss_instrumentation.py``.

    Extracted because inline in ``training_loop`` it could not be mutation-tested: building the
    header from the wrong config key mislabels every column and survived the whole suite
    (/review-diff follow-up, PR #398). Third extraction for the same reason — anything worth
    guarding inside ``training_loop`` has to come out of it to be testable.
    """
    return [f"loss/body/{n}" for n in config["regression_targets"]] + [
        f"loss/gate/{n}" for n in config["classification_targets"]
    ]


def _open_trajectory_file(path: str):
    """Open the trajectory CSV for writing, creating its parent directory first.

    An ABSOLUTE path is the only way a pod run brings this file home: `pod_run_model.sh` rsyncs
    `$ROOT/deliver/$MODEL` and creates only `artifact/`, `parquet/` and `draws/` inside it, so a
    path relative to the repo clone dies with the pod — exactly how the gate posterior was lost
    (views-models#558 / C-161). Without the mkdir, an absolute path under the deliver dir raises
    ``FileNotFoundError`` mid-run, AFTER the data pull and the model build, i.e. it wastes the
    expensive part before failing.

    A parent that exists as a FILE still raises ``FileExistsError`` — ``exist_ok`` suppresses only
    the already-a-directory case — so a genuine misconfiguration stays loud.

    Extracted as a function so it can be tested by behaviour rather than by a test that
    re-implements the same line (/code-review, PR #398).
    """
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    return open(path, "w", newline="")


def _noisable_channels(config: dict) -> list[int]:
    """Positions within the DYNAMIC input that input noise may touch — i.e. not geometry.

    `dyn_input` is `t0[:, idx.feat]`, so its channel j is `config["features"][j]`. Statics are a
    disjoint list re-attached afterwards, so in practice this returns every position.

    ⚠️ The exclusion branch is defence in depth, and its reachability is narrower than an earlier
    version of this docstring claimed. `_SequenceIndices` builds `feat` and `static` as two
    independent index lists over the same axis (~:153), so an overlap is *structurally*
    representable — but no **validated** config can produce one: the validator requires
    `features == regression_targets`, rejects statics appearing in targets (ADR-060 I1), and
    enforces `input_channels == 3*output_channels + len(static_channels)`. Measured 2026-09-04:
    `static_channels` is EMPTY on every arm in this fleet.

    So the branch is covered by a synthetic-config test rather than a real one — C-309, a guard
    whose firing case has never been observed is not a guard. It is kept because the two index
    lists are independent at this layer, and this function should not depend on a validator three
    modules away staying the way it is.
    """
    statics = set(config.get("static_channels") or [])
    return [j for j, name in enumerate(config.get("features") or []) if name not in statics]


def _apply_input_noise(
    dyn_input: torch.Tensor,
    keep: torch.Tensor,
    dropout: float,
    channels: list[int],
) -> tuple[torch.Tensor, torch.Tensor]:
    """Silence input events the way free-running silences them (#311, S1 #313).

    S1 measured what the model's own error actually is: at h18 it silences **99.6%** of true events
    while firing on 0.003% of true zeros — FN/FP = 36,870x. It does not jitter, so Gaussian noise
    (`SanchezGonzalez2020`'s instantiation for dense standardised fields) would model the wrong
    failure. The rollout-induced part of that silencing fits a constant per-step dropout of
    **p = 0.204** (relative residual 5% at h18); see `02_design.md`.

    ACCUMULATING, because rollout error accumulates and the paper's own ablation found random-walk
    noise beat i.i.d.: `keep` carries forward, so a dropped cell **stays dropped**. The caller
    resets it every `time_steps` steps — a training window is 348 steps while deployment rolls 36,
    and accumulating unbounded would leave 0.796^347 ~ 1e-35 of the input.

    Only removes. It cannot manufacture occurrence (M45's lever), and it writes 0, where
    `log1p(0) = 0` is on-manifold — so the negative-log-count hazard cannot arise.

    `channels` lists the positions of `dyn_input` that may be noised; static geometry channels are
    excluded by the caller because they are "always the true values, never sampled".
    """
    if not channels:
        return dyn_input, keep
    sel = dyn_input[:, channels]
    survives = (torch.rand_like(sel) >= dropout).to(sel.dtype)
    new_keep = keep.clone()
    new_keep[:, channels] = keep[:, channels] * survives
    return dyn_input * new_keep, new_keep


def _attach_static_channels(
    dyn_input: torch.Tensor, t0_step: torch.Tensor, idx: "_SequenceIndices"
) -> torch.Tensor:
    """ADR-060 I3: re-attach input-only static channels to the model input as [dynamic ⧺ static].

    Statics (e.g. CoordConv row/col) are geometry-constant — always the true values, never sampled
    and never fed from the output. The model was widened to expect them, so every forward (main
    training AND the Stage-5 diagnostic biopsy) must include them. Empty static ⇒ returns dyn_input
    unchanged, so the pre-seam path is byte-identical (I5)."""
    if idx.static:
        return torch.cat([dyn_input, t0_step[:, idx.static, :, :]], dim=1)
    return dyn_input


# ADR-065 (Epic #158): the point-body mask now lives in views_hydranet.utils.body_supervision.
# Re-exported here for the decay-gate penalty below and for existing importers
# (tests/test_active_window_mask).
_active_window_mask = _resolve_active_window_mask


def _decay_gate_penalty(
    gate_logits: torch.Tensor, cls_target: torch.Tensor, decay_active: torch.Tensor
) -> torch.Tensor:
    """Mean gate firing probability on DECAY cells (active in window AND zero now).

    The step-1 leak is the gate hedging (~0.38) on recently-active-now-zero cells (it ranks them
    below true conflict, AUC ~0.75, but does not commit). Penalising this mean sigmoid pushes them
    toward 0 — suppressing the leak — while leaving true-positive cells (label != 0) untouched.

    Args:
        gate_logits: ``[B, H, W]`` pre-sigmoid gate output for one classification target.
        cls_target: ``[B, H, W]`` binary label (a cell is a decay cell only where this is 0).
        decay_active: ``[B, H, W]`` bool — cell active at any window step (active_window mask).

    Returns:
        Scalar penalty = mean sigmoid over (decay_active & target==0); 0.0 if there are none.
    """
    decay = decay_active & (cls_target == 0)
    if not decay.any():
        return gate_logits.new_zeros(())
    return torch.sigmoid(gate_logits)[decay].mean()


#: Block sizes the structure penalty is evaluated at. FIXED in code, not configurable: the
#: pre-registration commits to k = 2 and 8 (`reports/2026-10-21_structure_penalty_arm_prereg.md`
#: §2), and a configurable set would make the arm two variables instead of one. The scoreboard
#: reads structure back at d = 1, 4, 16, 32 — deliberately not these — so the readout is not
#: wholly the trained quantity (§5 of that plan; the leak is reduced, not removed).
_STRUCT_BLOCKS = (2, 8)


def _block_variance(field: torch.Tensor, k: int) -> torch.Tensor:
    """``E[x²] − E[x]²`` within each ``k×k`` block of ``[B, H, W]``, as ``[B, 1, H/k, W/k]``.

    Two average pools rather than a reshape, so the gradient path is one PyTorch op per moment.
    ``clamp_min(0)`` because the two-moment form can go a few float-epsilons negative on a
    constant block, which would make the log below NaN.
    """
    x = field.unsqueeze(1)
    m1 = nn.functional.avg_pool2d(x, k)
    m2 = nn.functional.avg_pool2d(x * x, k)
    return (m2 - m1 * m1).clamp_min(0.0)


def _structure_penalty(
    family: DistributionFamily,
    params: torch.Tensor,
    gate_logits: torch.Tensor,
    target: torch.Tensor,
) -> torch.Tensor:
    """Mismatch between the within-block dispersion of the composed forecast and of the truth.

    ⛔ THE COMPOSED FIELD IS ``gate × family.mean(params)``, NOT ``gate × params[..., 0]``.
    Channel 0 is whatever a family calls ``mu``, and for ``truncated_nb`` that is the PARENT NB's
    mean while the magnitude the head emits is ``E[Y | Y>0] = mu / (1 − NB(0))`` — stated at
    ``truncated_negative_binomial.py:12`` and returned by its own ``mean()``. Measured on the
    delivered arm, ``1 − p0 = 0.471``, so ``gate × mu`` is roughly HALF the field the model emits
    and a dispersion penalty on it would constrain an object that is not the forecast. Under ``nb``
    the two are IDENTICAL (``mean()`` returns ``mu``), which is why this stayed invisible while the
    whole D3–D12 measurement programme ran on the nb vehicle (`4acbf4d3…`) — and why fixing it
    changes nothing for nb. Asking the family instead of indexing a channel is the same
    family-agnostic hook pattern as ``family.parameter_penalty`` at the accumulation site.

    ⛔ THE GATE IS DETACHED. The composed forecast is the only object comparable to observed counts
    — the body's mean alone is *conditional* (the magnitude GIVEN an event) while the target is
    unconditional, and comparing those two manufactured a phantom +28% over-prediction once
    already (`W-52`). Detaching the gate keeps gradients in the BODY, so the arm changes one head
    (§2 of the pre-registration).

    The gate for regression target ``j`` is classification channel ``j``: the pairing is
    ``gate order = reg``, stated at ``utils/hydranet_inference.py:1643`` and relied on by
    ``:1075``'s ``prob[:, :n_reg]``.

    Within-block variance is ``E[x²] − E[x]²`` over each ``k×k`` block, via two average pools. The
    The penalty is a ONE-SIDED difference of LOGS: a 10× dispersion SHORTFALL costs the same at
    every intensity, and excess dispersion costs nothing. See the comment at the accumulation for
    why the asymmetry is measured rather than assumed.

    Args:
        family: the regression head's distribution family, asked for its own ``mean``.
        params: ``[B, H, W, n_params]`` the family's ACTIVATED parameters for one target
            (``family_loss.py:24`` — the family consumes the activated head output).
        gate_logits: ``[B, H, W]`` pre-sigmoid gate output for the SAME target.
        target: ``[B, H, W]`` observed counts for that target.

    Returns:
        Scalar penalty, summed over ``_STRUCT_BLOCKS``.

    Raises:
        ValueError: if a block size does not divide the grid. ``avg_pool2d`` would silently drop
            the remainder, which would make the penalty a statement about a sub-grid nobody chose —
            the C-351 population failure, inside a loss term. Fail loud instead.
    """
    h, w = params.shape[-3:-1]
    bad = [k for k in _STRUCT_BLOCKS if h % k or w % k]
    if bad:
        err_msg = (
            f"struct_penalty_weight > 0 needs every block size in {_STRUCT_BLOCKS} to divide the "
            f"{h}x{w} grid; {bad} do not, and avg_pool2d would silently drop the remainder"
        )
        logger.error(err_msg)
        raise ValueError(err_msg)

    composed = torch.sigmoid(gate_logits).detach() * family.mean(params)
    pen = params.new_zeros(())
    for k in _STRUCT_BLOCKS:
        var_pred = _block_variance(composed, k)
        var_true = _block_variance(target, k)
        # ⛔ ONE-SIDED, and the asymmetry is MEASURED rather than convenient. D12's falsifier F1 —
        # "the model's gamma exceeds the truth's at any d" — never fired: in 4/4 window x direction
        # cells across 480 distance bins the model's structure function is BELOW the truth's at
        # every scale. The defect has one direction. A symmetric |difference| would spend most of
        # its gradient enforcing FLATNESS, because on a 97.8%-empty field most blocks have no truth
        # dispersion at all: measured on the derivation window (2 positive cells in 1,024), the
        # symmetric form's value was 12.381 against the one-sided 0.224 — ⇒ 98.2% of it was
        # pushing toward flatness, fighting the defect the term exists to fix.
        shortfall = torch.log(var_true + 1e-6) - torch.log(var_pred + 1e-6)
        pen = pen + shortfall.clamp_min(0.0).mean()
    return pen


def _family_target_log1p_mean(reg: torch.Tensor, family) -> torch.Tensor:
    """Collapse a family head's per-target activated params ``[B, n_reg*n_params, H, W]``
    (target-major) to per-target ``log1p(E[y])`` ``[B, n_reg, H, W]`` — the self-zeroed mean
    ``(1-π)μ`` for zinb, ``μ`` for nb. Shared by the training biopsy and the forensic dossier so
    both plot the honest per-target forecast (C-213), not a raw channel. Mirrors the
    ``hydranet_inference._emit_magnitude`` family branch.
    """
    npar = family.n_params
    means = [
        family.mean(reg[:, j * npar : (j + 1) * npar].permute(0, 2, 3, 1))
        for j in range(reg.shape[1] // npar)
    ]
    return torch.log1p(torch.stack(means, dim=1))  # [B, n_reg, H, W]


def _family_composed_mean_log1p(reg, family, gate, composition, threshold, *, emit_core=False):
    """``log1p(compose_mean(E[Y|body], gate))`` — the DIFFERENTIABLE analogue of a composed draw.

    Used as the straight-through surrogate for BPTT-SA (#308). It must be the *composed* mean, not
    ``_family_target_log1p_mean``: that one ignores the gate entirely, so it is the analogue of an
    UNCOMPOSED draw and would push gradient for a quantity the forward pass never produced.

    ``emit_core`` (ADR-068) selects ``family.mean_core``, the π-stripped BULK body, exactly as
    ``hydranet_inference._emit_magnitude`` does under the ``emit_family_core`` config flag. It is a
    CALLER's choice rather than a config read here, because the callers differ and the difference
    is not cosmetic: under ``zinb + emit_family_core + soft_gate`` — the mandated ``ZINBcore``
    shape, since config rule (2) requires a core-emitting zinb to declare a gate — deployment emits
    ``log1p(gate × μ_core)`` while ``family.mean`` gives ``log1p(gate × (1−π)μ)``, the π-and-gate
    double count rule (1) forbids.

    ⚠️ Only the biopsy forecast row passes it. The two feedback callers — this helper's use as the
    straight-through surrogate, and ``_family_feedback_log1p``'s 'mean' branch — still use
    ``family.mean`` unconditionally and so do NOT mirror deployment under that flag. Noted and
    deliberately not fixed with the release: both are training-exposure paths, so changing them
    changes a forecast. The surrogate's sibling ``fed`` draw has the same gap (``family.sample``,
    never ``sample_core``), which is C-234's shape inside the training engine rather than
    inference.
    """
    npar = family.n_params
    n_reg = reg.shape[1] // npar
    mean_fn = family.mean_core if emit_core else family.mean
    mus = torch.stack(
        [mean_fn(reg[:, j * npar : (j + 1) * npar].permute(0, 2, 3, 1)) for j in range(n_reg)],
        dim=1,
    )
    if composition != "self_zeroed":
        from views_hydranet.distributions.composition import compose_mean

        mus = compose_mean(mus, gate[:, :n_reg], composition, threshold)
    return torch.log1p(mus)


def _biopsy_forecast_label(composition, emit_core):
    """The biopsy forecast row's label, derived from what the row was actually BUILT with.

    It used to be keyed on ``family.self_zeroed``, which labelled a gate-composed field
    "self-zeroed E[y]" for every ``ZINBcore`` arm: ``emit_family_core`` makes a zinb NOT
    self-zeroed (``config_initializer``: ``is_self_zeroed_family = raw_self_zeroed and not
    self.emit_family_core``) and rule (2) then REQUIRES it to declare a gate, so the family
    attribute and the applied composition disagree exactly where the flag is on.

    A pure function rather than four lines inline, because a label built inside ``train()``'s
    biopsy loop cannot be asserted without a full training run — and an unassertable label is how
    the wrong one survived.
    """
    body = "E[y|core]" if emit_core else "E[y]"
    if composition == "self_zeroed":
        return f"FORECAST (self_zeroed {body})"
    return f"FORECAST log1p({composition}({body}, gate))"


def _family_feedback_log1p(reg, family, mode, gate, composition, threshold, generator=None):
    """EXP-4 (GTF): the per-target log1p feedback for scheduled sampling with a family head.

    'mean' => log1p(composed E[y]) (fixes the legacy ss path, which fed raw n_params
    channels — shape-mismatched to the n_reg dynamic inputs; and S2/#355, which fed it UNGATED).
    'sample' => one composition-aware family DRAW per target (mirrors inference
    `_sample_feedback`), so training exposure == deployment exposure.
    Returns ``[B, n_reg, H, W]`` in log1p space, matching the dynamic input channels.

    ``generator`` (C-261): seeds the family draw + composition Bernoulli so a parity test can
    assert byte-equality against ``hydranet_inference._sample_feedback`` (seeded). NOTE: the
    production call site passes ``None`` (global RNG), so SS training feedback is NOT
    byte-reproducible today — the seeded path is exercised only by the parity test (C-261).
    """
    if mode != "sample":
        # S2/#355: the COMPOSED mean, not `_family_target_log1p_mean`. That one ignores the gate,
        # so this branch fed `log1p(E[Y|body])` while deployment emits `log1p(gate x body)` — at
        # this model's gate range (~0.003-0.05) a field 36.1x too large, measured.
        #
        # Provably a no-op for scheduled sampling, which is what this helper was written for: the
        # C-259 validator rejects `ss_feedback='mean'` with a gated composition whenever SS is
        # active, so the only composition that reaches here from SS is `self_zeroed` — where
        # `_family_composed_mean_log1p` returns the ungated mean byte-identically (verified
        # `torch.equal`). The behaviour that changes is the #289 PUSHFORWARD's, which calls this
        # helper with `ss_feedback` and is not covered by that validator because it never sets
        # `ss_epsilon_max`.
        #
        # ⚠️ Out of scope and deliberately not decided here: whether the pushforward should feed a
        # composed MEAN or a composed DRAW. Deployment feeds a draw (ADR-070). `fed` is
        # detached, so this is an exposure question, not a gradient one. Unreachable today —
        # `pushforward_weight` defaults to 0.0 and no roster config sets it.
        return _family_composed_mean_log1p(reg, family, gate, composition, threshold)
    npar = family.n_params
    n_reg = reg.shape[1] // npar
    draws = torch.stack(
        [
            family.sample(
                reg[:, j * npar : (j + 1) * npar].permute(0, 2, 3, 1), 1, generator
            ).squeeze(-1)
            for j in range(n_reg)
        ],
        dim=1,
    )  # [B, n_reg, H, W] count space
    if composition != "self_zeroed":
        from views_hydranet.distributions.composition import compose_samples

        cube = draws.permute(0, 2, 3, 1).unsqueeze(-1)  # [B,H,W,n_reg,1]
        g = gate[:, :n_reg].permute(0, 2, 3, 1)  # [B,H,W,n_reg]
        cube = compose_samples(cube, g, composition, threshold, generator)
        draws = cube.squeeze(-1).permute(0, 3, 1, 2)  # -> [B, n_reg, H, W]
    return torch.log1p(draws.clamp(min=0.0))


def _attach_feedback_grad_clip(
    fed: torch.Tensor, max_norm: float | None, sink: list[float] | None
) -> None:
    """Bound the gradient leaving the scheduled-sampling handoff, ONE STEP AT A TIME.

    `fed` is the sole tensor through which credit crosses from step i+1 back to step i, so it is
    the exact bottleneck of the BPTT product chain. Clipping here bounds the per-step
    amplification; `clip_grad_norm_` in the lesson loop cannot, because it runs once at the END of
    the backward pass, long after the product has already overflowed. That distinction is the whole
    reason this exists — the GRAD-TRAJ probe (#308, 2026-09-04) measured the attached arm's
    pre-clip gradient norm rising 133,465 -> 9.4e9 between lessons 15-25 and 38-47 while its
    control's FELL 859 -> 312, and float32 gave out at lesson 48. Clipping was on the whole time.

    Scales, never truncates: an element-wise clamp would rotate the gradient, which is
    Pascanu et al. 2013's argument for norm-rescaling inside a recurrence.

    `max_norm=None` observes without acting, so the natural scale can be MEASURED before a
    threshold is chosen rather than guessed. `sink` is appended to only when supplied, because
    reading the norm forces a device sync on every one of the ~383 steps in a window.

    Returns None ON PURPOSE. `register_hook` mutates the tensor, so an earlier version that
    returned `fed` worked identically whether or not the caller assigned the result — mutation
    testing found that dropping the assignment at the call site changed nothing, i.e. the
    signature advertised a transformation the function does not perform. A future edit returning a
    NEW tensor would then have broken silently. Named and typed as the side effect it is.
    """
    if not fed.requires_grad or (max_norm is None and sink is None):
        return

    def _hook(grad: torch.Tensor) -> torch.Tensor:
        norm = grad.norm(2)
        if sink is not None:
            sink.append(norm.item())
        if max_norm is None:
            return grad
        # `norm` can be 0 (a step that reached no supervised target) — the epsilon keeps the
        # no-op branch from dividing by it rather than guarding the ratio afterwards.
        return grad * (max_norm / (norm + 1e-12)) if norm > max_norm else grad

    fed.register_hook(_hook)


def _process_sequence(
    train_tensor: torch.Tensor,
    model: nn.Module,
    h: torch.Tensor,
    criterion_reg: nn.Module | dict[str, nn.Module],
    criterion_class: nn.Module,
    multitaskloss_instance: nn.Module,
    idx: "_SequenceIndices",
    device: torch.device,
    pbar: tqdm | None = None,
    forensics: TrainingForensics | None = None,
    qs99_weight: float | None = None,
    qs99_tau: float | None = None,
    target_weights: dict[str, float] | None = None,
    ss_epsilon: float = 0.0,
    cls_valid_mask: torch.Tensor | None = None,
    decay_gate_weight: float = 0.0,
    struct_penalty_weight: float = 0.0,
    body_supervision: str = "all",
    onset_lead: int = 0,
    cessation_lag: int = 0,
    event_threshold: float = 0.0,
    pi_penalty_weight: float | None = None,
    pi_penalty_prior_logit: float = 0.0,
    family=None,
    ss_feedback: str = "mean",
    forecast_composition: str = "self_zeroed",
    gate_threshold: float | None = None,
    pushforward_weight: float = 0.0,
    pushforward_detach_state: bool = False,
    ss_backprop_through_feedback: bool = False,
    ss_feedback_grad_clip: float | None = None,
    ss_feedback_grad_sink: list[float] | None = None,
    input_noise_dropout: float | None = None,
    input_noise_segment: int | None = None,
    input_noise_channels: list[int] | None = None,
) -> dict[str, Any]:
    """
    Pure sequence processing: forward pass over [B, T, C, H, W] tensor.

    Runs the recurrent model step-by-step through the temporal sequence,
    computes multi-task losses, and optionally records forensic data.
    No optimizer, no diagnostics, no data augmentation — just forward + loss.

    Returns dict with keys: total, reg, cls, h, per_task, task_names, per_step_losses.
    ``per_task`` is the summed 6-vector the balancer combines (body then gate, in
    ``task_names`` order); ``reg``/``cls`` are its two partial sums.
    """
    seq_len = train_tensor.shape[1]
    total_loss = torch.tensor(0.0).to(device)
    step_reg: list[float] = []
    # Lazily shaped on the first step (the task count comes from the window's channel map).
    per_task_sum: "torch.Tensor | None" = None
    step_cls: list[float] = []
    step_total: list[float] = []

    # Censored losses (TobitLoss) need pre-ReLU latent mu — resolve once
    if isinstance(criterion_reg, dict):
        use_latent = any(getattr(v, "needs_latent", False) for v in criterion_reg.values())
    else:
        use_latent = getattr(criterion_reg, "needs_latent", False) is True

    # Point-body supervision window (ADR-065 + amend. 2026-07-28): resolve the validated
    # body_supervision config to a concrete cell-timestep set ONCE, here — no `if mode ==` ladder
    # in the loss loop. It applies only to a POINT body: a latent loss owns its own zero handling
    # (validated by validate_body_supervision_latent), so it is a no-op there and we keep the
    # all-cell path (byte-identical for `all`+latent). `event_threshold` from derivation (C-195).
    apply_body_mask = body_supervision == "active" and not use_latent
    body_mask_full: torch.Tensor | None = (
        resolve_body_supervision(onset_lead, cessation_lag, event_threshold)(
            train_tensor[:, 1:, idx.reg, :, :]
        )
        if apply_body_mask
        else None
    )

    # Opt-in gate-side decay penalty (2026-06-28 gate_resolution): suppress the GATE on cells
    # active in the window but zero now. Keyed only on the true targets (threshold 0), so — unlike
    # body active_window mask (C-180) — it applies even under a latent body (production hurdle_nb).
    decay_active: torch.Tensor | None = None
    if decay_gate_weight > 0:
        decay_active = _active_window_mask(train_tensor[:, 1:, idx.reg, :, :], 0.0)

    prev_pred: torch.Tensor | None = None
    _noise_keep: torch.Tensor | None = None  # accumulating keep-mask, reset per segment
    # No usable default for the segment: a literal would be a shadow default (C-85) and would
    # silently differ from the caller's `time_steps`. Demanded only when the noise is on.
    _noise_segment = 0
    if input_noise_dropout is not None:
        # `bool` is excluded explicitly: isinstance(True, int) is True, and `segment=True` would
        # give segment 1 — the mask resetting every step, silently turning the accumulating design
        # into the i.i.d. one the paper's ablation found WORSE. `cv()` rejects bools for the same
        # reason; the pattern was known here and not applied.
        if (
            isinstance(input_noise_segment, bool)
            or not isinstance(input_noise_segment, int)
            or input_noise_segment < 1
        ):
            err_msg = (
                "input_noise_dropout is set but input_noise_segment is "
                f"{input_noise_segment!r}; it must be a positive int (the deployment horizon)"
            )
            logger.error(err_msg)
            raise ValueError(err_msg)
        _noise_segment = input_noise_segment

    for i in range(seq_len - 1):
        t0 = train_tensor[:, i, :, :, :]
        t1 = train_tensor[:, i + 1, :, :, :]

        # ADR 046: Separate ground truth signals explicitly
        y_reg = t1[:, idx.reg, :, :]
        y_cls = t1[:, idx.cls, :, :]

        # Forward pass: Feed ONLY the input features (Zero Magic)
        t0_gt = t0[:, idx.feat, :, :]

        # ADR-056: scheduled sampling may replace the ground-truth DYNAMIC features with prediction
        if ss_epsilon > 0.0 and prev_pred is not None:
            mask = torch.rand(t0_gt.shape[0], 1, 1, 1, device=device) < ss_epsilon
            dyn_input = torch.where(mask, prev_pred, t0_gt)
        else:
            dyn_input = t0_gt

        # #311: silence input events the way free-running silences them. AFTER the scheduled-
        # sampling resolution so both branches are augmented identically (noising only the `else`
        # would leave the eps>0 arm unaugmented and make the arms incomparable), and BEFORE the
        # static re-attach so geometry is never touched.
        if input_noise_dropout is not None:
            if i % _noise_segment == 0:
                # Segment start = the deployment seed step, which is fed a REAL observation
                # (`hydranet_inference` feeds the true field at `t == origin`). The design fits
                # survival S(h) = (1-p)^(h-1), i.e. horizon 1 is clean; dropping on this step made
                # the implemented curve 0.796 at h1 against a fitted 1.0 — a flat 20.4%
                # over-silencing at every horizon, four times the design's own residual tolerance.
                _noise_keep = torch.ones_like(dyn_input)
            else:
                dyn_input, _noise_keep = _apply_input_noise(
                    dyn_input, _noise_keep, input_noise_dropout, input_noise_channels or []
                )

        # ADR-060 I3: re-attach static (input-only) channels [dynamic ⧺ static]. See helper.
        t0_input = _attach_static_channels(dyn_input, t0, idx)

        output = model(t0_input, h)
        t1_pred, t1_pred_class, h = output.reg, output.cls, output.h_next
        # EXP-4 (GTF): only compute the fed-back copy when scheduled sampling is active (ε>0), so
        # ε=0 stays byte-identical (branch never runs). A family emits n_params channels/target, so
        # the raw `t1_pred` is shape-mismatched to the n_reg dynamic inputs — collapse it to the
        # per-target log1p mean ('mean', fixes the legacy family path) or a composition-aware DRAW
        # ('sample', EXP-4: train exposure == deploy exposure). Legacy point head: raw pred.
        if ss_epsilon > 0.0:
            # BPTT-SA (#308, Vlachas2023). The `.detach()` below is the ONLY cut in the training
            # graph's feedback path: the recurrent state `h` already flows across steps undetached
            # (~383-step graph, one backward() -- 2026-08-26 audit), so with it the model is told
            # "step i was wrong" but never "and step i-1 produced the input that made it wrong".
            # That is standard scheduled sampling, and it is a mechanical account of why M26-M33
            # failed: the fed-back prediction is a constant, so no credit reaches its producer.
            # Leaving it attached lets the gradient reach back through the handoff.
            # Default False keeps every existing arm byte-identical.
            if family is not None:
                gate_p = torch.sigmoid(t1_pred_class)
                fed = _family_feedback_log1p(
                    t1_pred, family, ss_feedback, gate_p, forecast_composition, gate_threshold
                )
                if ss_backprop_through_feedback and ss_feedback == "sample":
                    # STRAIGHT-THROUGH. A DRAW is not reparameterised: d(draw)/d(params) is exactly
                    # 0 (measured -- 167.8 under 'mean', 0.0 under 'sample'), so simply leaving it
                    # attached is a NO-OP. The first attempt at #308 did exactly that and trained
                    # two arms to byte-identical weights over 276 minutes.
                    #
                    # C-259 requires 'sample' whenever eps>0, so the differentiable mode is not
                    # available and the draw must be kept in the FORWARD pass. Straight-through
                    # gives forward = the draw, backward = the mean's gradient:
                    #     fed = mean + (draw - mean).detach()
                    # The added term is exactly zero in value, so the forward pass is unchanged --
                    # which keeps the arms differing in credit assignment ONLY.
                    surrogate = _family_composed_mean_log1p(
                        t1_pred, family, gate_p, forecast_composition, gate_threshold
                    )
                    fed = surrogate + (fed - surrogate).detach()
            else:
                fed = t1_pred
            if ss_backprop_through_feedback and family is not None:
                # Only when the wire is connected AND only on a family head. On the legacy point
                # path `fed = t1_pred` (above) and `t1_pred_for_loss = t1_pred` when `use_latent`
                # is False, so `fed` IS the regression loss's input. `register_hook` on a non-leaf
                # fires once on the gradient accumulated from ALL consumers, so the clip would
                # rescale the primary supervised gradient and `fed_grad_max` would report
                # reg + gate + qs99 + feedback rather than the handoff it is named for. The helper
                # promises `fed` is "the sole tensor through which credit crosses"; that is true
                # for a family head, where `fed` is derived, and false here.
                #
                # S2/#355: this used to end "A config validator rejects the combination outright,
                # so this branch is defence in depth." No such validator existed — the C-303 shape.
                # It does now: `reject_bptt_sa_without_a_family` in `config_initializer.py`,
                # mirroring `reject_pushforward_without_a_family`. The claim survives only because
                # it is now true, and it names the validator so the next reader can check it
                # rather than trust it.
                _attach_feedback_grad_clip(fed, ss_feedback_grad_clip, ss_feedback_grad_sink)
            prev_pred = fed if ss_backprop_through_feedback else fed.detach()

        t1_pred_for_loss = output.reg_latent if use_latent else t1_pred

        # --- FORENSIC RECORDING (ADR 001 Custodian) ---
        # step_idx=i tags the within-window timestep so the dossier can split t=0 / early / late
        # from the full-window aggregate (horizon-split columns).
        if forensics:
            # ADR-067 (C-213): a distribution-family reg head emits n_params channels PER target
            # (target-major). Collapse to per-target log1p(E[y]) so the forensic plots each
            # target's OWN self-zeroed forecast (not a raw channel of target-0), and record the
            # activated params for the param-health frame. Point/legacy heads keep the raw path.
            _fl = next(
                (
                    lf
                    for lf in (
                        criterion_reg.values()
                        if isinstance(criterion_reg, dict)
                        else [criterion_reg]
                    )
                    if isinstance(lf, FamilyLoss)
                ),
                None,
            )
            _yh_ey = _family_target_log1p_mean(t1_pred, _fl.family) if _fl is not None else None
            for j, target_name in enumerate(idx.reg_names):
                if _fl is not None:
                    npar = _fl.n_params
                    forensics.record(
                        f"REG:{target_name}", y_reg[:, j : j + 1], _yh_ey[:, j : j + 1], step_idx=i
                    )
                    forensics.record_params(
                        f"REG:{target_name}",
                        t1_pred[:, j * npar : (j + 1) * npar].permute(0, 2, 3, 1),
                        y_reg[:, j],
                        step_idx=i,
                    )
                else:
                    forensics.record(
                        f"REG:{target_name}",
                        y_reg[:, j : j + 1],
                        t1_pred[:, j : j + 1],
                        step_idx=i,
                    )
            for j, target_name in enumerate(idx.cls_names):
                forensics.record(
                    f"CLS:{target_name}",
                    y_cls[:, j : j + 1],
                    torch.sigmoid(t1_pred_class[:, j : j + 1]),
                    step_idx=i,
                )

        # Loss computation
        losses_list = []
        qs99_loss = torch.tensor(0.0, device=device)
        # C-200: family parameter-prior ridge (e.g. ZINB π/μ-ridge), accumulated across targets and
        # scaled by pi_penalty_weight at the reduction site (qs99/decay additive precedent).
        pi_pen = torch.tensor(0.0, device=device)
        struct_pen = torch.tensor(0.0, device=device)
        for j in range(idx.n_reg):
            # Issue #44: per-target loss instance (or shared single instance)
            loss_fn_j = (
                criterion_reg[idx.reg_names[j]]
                if isinstance(criterion_reg, dict)
                else criterion_reg
            )

            # ADR-067 (C-207): a distribution family emits n_params channels per target; slice this
            # target's n_params and move them to the last dim ([B,H,W,n_params]) for family.nll.
            # Quantile head: K channels per target (multi-tau pinball). Every other head keeps one
            # channel per target. Registry-first via FamilyLoss, so legacy dispatch is untouched.
            if isinstance(loss_fn_j, FamilyLoss):
                npar = loss_fn_j.n_params
                pred_j = t1_pred_for_loss[:, j * npar : (j + 1) * npar, :, :].permute(0, 2, 3, 1)
            elif isinstance(loss_fn_j, QuantileLoss):
                k = loss_fn_j.taus.numel()
                pred_j = t1_pred_for_loss[:, j * k : (j + 1) * k, :, :].permute(0, 2, 3, 1)
            else:
                pred_j = t1_pred_for_loss[:, j, :, :]
            target_j = y_reg[:, j, :, :]

            # C-87: per-target loss weight (1.0 if not configured)
            tw = 1.0
            if target_weights is not None:
                tw = target_weights[idx.reg_names[j]]

            if apply_body_mask:
                # ADR-065: the pre-resolved point-body mask for target j at this step. `pos_cells`
                # = per-step positives; `pos_timelines` = the full timeline of ever-active cells
                # (the decay signal, dossier 15). Resolved once above; here we only index it.
                mask = body_mask_full[:, i, j]
                if isinstance(loss_fn_j, FamilyLoss):
                    # C-199: pass the mask as a broadcast weight into family.nll instead of
                    # boolean-indexing pred_j[mask] — numerically identical for a 0/1 mask, but a
                    # graph-connected 0 on an all-zero-active batch (not a detached tensor(0.0)).
                    losses_list.append(
                        tw * loss_fn_j(pred_j, target_j, weight=mask.to(pred_j.dtype))
                    )
                elif mask.any():
                    losses_list.append(tw * loss_fn_j(pred_j[mask], target_j[mask]))
                else:
                    losses_list.append(torch.tensor(0.0, device=device))

                # C-48: QS99 regularizer (distribution-free pinball on mu). Undefined over a family
                # param vector [.,n_params] (F-1) → skip for FamilyLoss.
                # Only active when the body is masked and weight > 0.
                qs99_active = (
                    qs99_weight is not None
                    and qs99_weight > 0
                    and qs99_tau is not None
                    and mask.any()
                    and not isinstance(loss_fn_j, FamilyLoss)
                )
                if qs99_active:
                    error = target_j[mask] - pred_j[mask]
                    pinball = torch.where(
                        error >= 0,
                        qs99_tau * error,
                        (qs99_tau - 1.0) * error,
                    )
                    qs99_loss = qs99_loss + tw * pinball.mean()
            else:
                losses_list.append(tw * loss_fn_j(pred_j, target_j))

            # The structure penalty (2026-10-21 prereg). Accumulated on the full grid, scaled by
            # struct_penalty_weight at the reduction site, byte-identical no-op at 0. Needs a
            # FamilyLoss because it reads mu as parameter channel 0 of pred_j; a non-family head
            # has no such channel, so this FAILS LOUD rather than penalising whatever is there —
            # the C-324 failure (an arm that trains on something inert and reports a clean null).
            if struct_penalty_weight > 0:
                if not isinstance(loss_fn_j, FamilyLoss):
                    err_msg = (
                        f"struct_penalty_weight={struct_penalty_weight} requires a distribution "
                        f"family (nb/zinb/truncated_nb); target {idx.reg_names[j]} uses "
                        f"{type(loss_fn_j).__name__}, which emits no mu channel"
                    )
                    logger.error(err_msg)
                    raise ValueError(err_msg)
                if j >= idx.n_cls:
                    err_msg = (
                        f"struct_penalty_weight={struct_penalty_weight} needs one classification "
                        f"target per regression target (gate order = reg); got "
                        f"{idx.n_reg} reg and {idx.n_cls} cls"
                    )
                    logger.error(err_msg)
                    raise ValueError(err_msg)
                # The FAMILY composes its own mean — never `pred_j[..., 0]`, which is the raw
                # mu channel and under `truncated_nb` is ~2x below the magnitude the head emits
                # (see `_structure_penalty`). The gate for reg target j is classification channel
                # j ("gate order = reg", utils/hydranet_inference.py:1643).
                struct_pen = struct_pen + tw * _structure_penalty(
                    loss_fn_j.family, pred_j, t1_pred_class[:, j, :, :], target_j
                )

            # C-200/C-205: family parameter-prior ridge (family-agnostic hook — nb returns a
            # graph-safe 0, zinb the π/μ-ridge). Accumulated on the full-grid params; scaled by
            # pi_penalty_weight at the reduction site. Byte-identical no-op when weight is None/0.
            if pi_penalty_weight and isinstance(loss_fn_j, FamilyLoss):
                pi_pen = pi_pen + tw * loss_fn_j.family.parameter_penalty(
                    pred_j, prior_logit=pi_penalty_prior_logit, scale=1.0
                )

        decay_pen = torch.tensor(0.0, device=device)
        for j in range(idx.n_cls):
            pred_cj = t1_pred_class[:, j, :, :]
            targ_cj = y_cls[:, j, :, :]
            # Gate-side decay penalty (opt-in): accumulate on the FULL grid BEFORE any valid-mask.
            if decay_active is not None and j < decay_active.shape[1]:
                decay_pen = decay_pen + _decay_gate_penalty(pred_cj, targ_cj, decay_active[:, j])
            # C-181 (opt-in A/B): restrict the gate loss to valid (land) cells, matching the
            # hurdle-masked reg loss and the priogrid-masked eval. None ⇒ full grid (default).
            if cls_valid_mask is not None:
                pred_cj = pred_cj[:, cls_valid_mask]
                targ_cj = targ_cj[:, cls_valid_mask]
            # per-target gate loss (list) OR a shared instance (mirrors the reg per-target dict)
            crit_cj = (
                criterion_class[j]
                if isinstance(criterion_class, (list, tuple))
                else criterion_class
            )
            losses_list.append(crit_cj(pred_cj, targ_cj))

        # ── PUSHFORWARD (Brandstetter et al. 2022, #289) ────────────────────────────────────
        # An AUXILIARY loss. It does not change the recurrent trajectory — `h` is threaded by the
        # main teacher-forced loop only — and at `pushforward_weight == 0.0` the branch is never
        # entered, so that setting is byte-identical to the pre-flag model.
        #
        # It is NOT side-effect-free, and two side effects have to be suppressed explicitly:
        #
        # 1. **BatchNorm.** The model is in `train()` mode, so an extra `model(...)` call updates
        #    `running_mean`/`running_var`/`num_batches_tracked` on all 15 BN layers — measured at
        #    `num_batches_tracked` 5 -> 9 on a T=6 window, i.e. roughly HALF the saved BN
        #    statistics would come from self-fed, off-distribution inputs. Those buffers are model
        #    state: they go into the artifact and are used at eval. Worse, `train()` is also the
        #    workhorse of `_recalibrate_bn` (the C-184 fix, `bn_recalibrate: True` by default),
        #    which resets BN and recomputes with `momentum=None` — a cumulative average, so the
        #    pushforward forwards would carry EQUAL weight rather than an EMA discount. An arm with
        #    `pushforward_weight > 0` would then differ from its control at the BN layer for
        #    reasons unrelated to the auxiliary loss, confounding the A/B. Suppressed by running
        #    the extra forward with BN in eval mode.
        # 2. **The recalibration pass itself.** `_recalibrate_bn` calls this under `no_grad`, where
        #    the pushforward loss is computed and discarded — pure cost. Skipped via
        #    `torch.is_grad_enabled()`.
        #
        # Dropout still advances the global RNG stream on the extra forward. Harmless (it cannot
        # reach the `pushforward_weight == 0.0` control, which never enters this branch), but two
        # arms differing only in `pushforward_weight` do not share a dropout stream.
        #
        # Take one extra step from the model's OWN emitted field and score it against ground truth
        # at t+2 — "unroll 2 steps, cut the gradient after the first, compute the loss at the
        # pushforward time". The gradient cut is `.detach()` on the fed field, which on the
        # `sample` path is already unavoidable (`torch.poisson` severs it; measured as
        # exactly 0.0),
        # so on that path that half of the paper's method is a NO-OP and the SECOND UNROLL is the
        # entire intervention. Recorded because implementing only the detach would have done
        # nothing while looking correct.
        #
        # `pushforward_detach_state` is a fork the paper cannot settle: its solver is stateless, so
        # cutting the input cuts every path. Ours is recurrent and `h` carries gradient, so False
        # (default) lets the pushforward loss train the RECURRENCE to produce states that survive
        # one step of self-feeding. True reproduces the stateless reading.
        pf_loss = None
        if (
            pushforward_weight > 0.0
            and family is not None
            and i + 2 < seq_len
            and torch.is_grad_enabled()  # see (2) above: no-op under _recalibrate_bn's no_grad
        ):
            fed = _family_feedback_log1p(
                t1_pred,
                family,
                ss_feedback,
                torch.sigmoid(t1_pred_class),
                forecast_composition,
                gate_threshold,
            ).detach()
            # The fed field stands in for t+1, so its static channels come from t1, matching how
            # the main path pairs `dyn_input` with its own `t0`. A no-op while statics are
            # geometry-constant, but the inconsistent pairing would become a real bug the moment a
            # time-varying "static" channel is added.
            # #289 x #311: `fed` is deliberately NOT passed through `_apply_input_noise`. With
            # both knobs enabled the pushforward step would train on un-noised inputs while the
            # main step trains on noised ones. Recorded rather than accidental: pushforward's input
            # is already the model's own output, so it carries the model's real errors, and a
            # training corruption on top would stack two different perturbations. Unreachable today
            # (`pushforward_weight` defaults to 0.0); revisit before ever enabling both.
            pf_in = _attach_static_channels(fed, t1, idx)
            pf_h = h.detach() if pushforward_detach_state else h
            with _batchnorm_eval(model):  # see (1) above
                pf_out = model(pf_in, pf_h)
            y2_reg = train_tensor[:, i + 2, idx.reg, :, :]
            pf_terms = []
            for j, name in enumerate(idx.reg_names):
                loss_fn_j = (
                    criterion_reg[name] if isinstance(criterion_reg, dict) else criterion_reg
                )
                # `family is not None` guarantees FamilyLoss, which always exposes n_params.
                # Indexed rather than getattr-with-default: a default of 1 would silently
                # mis-slice a multi-channel head instead of failing.
                npar = loss_fn_j.n_params
                # C-87 parity with the main reg loop: the same per-target weight, or the auxiliary
                # term silently re-weights the targets relative to the primary objective.
                tw_pf = 1.0 if target_weights is None else target_weights[name]
                pf_terms.append(
                    tw_pf
                    * loss_fn_j(
                        pf_out.reg[:, j * npar : (j + 1) * npar].permute(0, 2, 3, 1),
                        y2_reg[:, j],
                    )
                )
            pf_loss = torch.stack(pf_terms).sum()

        losses = torch.stack(losses_list)
        if per_task_sum is None:
            per_task_sum = torch.zeros_like(losses.detach())
        loss = cast(Any, multitaskloss_instance)(losses)
        if pf_loss is not None:
            loss = loss + pushforward_weight * pf_loss
        if qs99_weight is not None and qs99_weight > 0:
            loss = loss + qs99_weight * qs99_loss
        if decay_gate_weight > 0:
            loss = loss + decay_gate_weight * decay_pen
        if struct_penalty_weight > 0:
            loss = loss + struct_penalty_weight * struct_pen
        if pi_penalty_weight:
            loss = loss + pi_penalty_weight * pi_pen
        total_loss += loss

        loss_reg = losses[: idx.n_reg].sum()
        loss_class = losses[idx.n_reg :].sum()

        # PER-TASK accumulation. `losses` is the 6-vector the balancer combines; the two sums
        # above are all that used to survive, which is why r2/r3 had to reconstruct the per-target
        # split from delivered WEIGHTS after the fact. Detached, no graph, no RNG — it cannot move
        # a result. See reports/2026-10-13_composition_arm_outcome/.
        per_task_sum += losses.detach()

        step_reg.append(loss_reg.detach().item())
        step_cls.append(loss_class.detach().item())
        step_total.append(loss.detach().item())

        if pbar is not None:
            pbar.update(1)

    return {
        "total": total_loss,
        "reg": torch.tensor(np.sum(step_reg)).to(device),
        "cls": torch.tensor(np.sum(step_cls)).to(device),
        "h": h,
        "per_task": per_task_sum,
        "task_names": [f"body/{n}" for n in idx.reg_names] + [f"gate/{n}" for n in idx.cls_names],
        "per_step_losses": (step_total, step_reg, step_cls),
    }


class TrainingContext:
    """Bundles the 'wired once' training components (C-17).

    Reduces train() from 13 parameters to 5: ctx, sample_handler, pbar, stage_label, ss_epsilon.
    Created once in training_loop(), passed to every train() call.
    """

    __slots__ = (
        "model",
        "optimizer",
        "scheduler",
        "criterion_reg",
        "criterion_class",
        "multitaskloss_instance",
        "config",
        "device",
        "viz",
        "forensics",
    )

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        scheduler: torch.optim.lr_scheduler._LRScheduler | None,
        criterion_reg: nn.Module | dict[str, nn.Module],
        criterion_class: nn.Module,
        multitaskloss_instance: nn.Module,
        config: dict,
        device: torch.device,
        viz: VisualDiagnostics | None = None,
        forensics: TrainingForensics | None = None,
    ):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.criterion_reg = criterion_reg
        self.criterion_class = criterion_class
        self.multitaskloss_instance = multitaskloss_instance
        self.config = config
        self.device = device
        self.viz = viz
        self.forensics = forensics


def train(
    ctx: TrainingContext,
    sample_handler: VolumeHandler,
    pbar: tqdm,
    stage_label: str = "",
    ss_epsilon: float = 0.0,
    fed_grad_sink: list[float] | None = None,
    training_augmentation: bool = True,
) -> dict[str, torch.Tensor]:
    ctx.model.train()
    ctx.multitaskloss_instance.train()

    # Dropout stays ON during a BatchNorm-recalibration pass, deliberately. It is NOT a training-
    # only augmentation here: production inference runs `model.eval()` + `set_locked_dropout(True)`
    # (ADR-057, MC-dropout with a locked mask), so every LockedDropout masks at forecast time and
    # the BN running statistics must be estimated on dropout-shaped activations to match. The
    # C-184 recal fix that flipped 6/6 bad seeds was validated with dropout on. Epic #353 / S3
    # briefly switched dropout off on these passes on the premise that inference runs it off;
    # `/code-review max` on #372 measured the result — running_var 14-21% low at the 14 BN layers
    # downstream of a dropout site, gate-logit std +14% at inference — and the flip was reverted
    # before merge. Do not re-add it.
    #
    # Scheduled sampling IS gated here, not only at the call site: `training_augmentation=False`
    # must mean what it says inside this function, or a future caller that forwards the schedule's
    # epsilon accumulates BN statistics on self-fed fields with every log clean (C-303 shape).
    if not training_augmentation:
        ss_epsilon = 0.0

    config = ctx.config
    model = ctx.model
    device = ctx.device
    viz = ctx.viz
    forensics = ctx.forensics

    # 1. Stochastic Data Augmentation (Tube-Level)
    # `training_augmentation` gates EVERY training-only augmentation, not one of them. C-328's own
    # trigger is "adding any augmentation without asking which non-training forwards also traverse
    # it", and a per-augmentation flag invites the next instance: the first fix for C-328 named
    # `apply_input_noise` and left this flip — older than the noise — polluting the same passes.
    if config.get("random_flips") and training_augmentation:
        if np.random.rand() < 0.5:
            sample_handler = sample_handler.flip("H")
        if np.random.rand() < 0.5:
            sample_handler = sample_handler.flip("W")

    # 2. Model Entry Gate: Transform to PyTorch [B, T, C, H, W]
    train_tensor = sample_handler.to_pytorch(device, include_identities=False)

    # 3. Pre-compute channel indices (Zero Magic ADR 003)
    # ADR-062: indices are read off the kept model tensor (inputs ⧺ targets) = tensor_cols,
    # the de-overloaded feature_cols (== old feature_cols value → byte-identical).
    feature_names = [n for n in sample_handler.channel_map if n in sample_handler.tensor_cols]
    idx = _SequenceIndices(feature_names, config)

    seq_len = train_tensor.shape[1]
    window_H = train_tensor.shape[-2]
    window_W = train_tensor.shape[-1]

    mem_allocated = torch.cuda.memory_allocated(device) / (1024**2) if device.type == "cuda" else 0
    logger.debug(
        f"🚀 Training: Entered Gate with Tensor {train_tensor.shape} | "
        f"GPU Mem: {mem_allocated:.2f} MB"
    )

    # 4. Initialize hidden state
    h = model.init_hTtime(hidden_channels=model.base, H=window_H, W=window_W).to(device)

    # 5. STAGE 5 DIAGNOSTIC
    acc_y_reg: list[np.ndarray] = []
    acc_yh_reg: list[np.ndarray] = []
    acc_yh_fc: list[np.ndarray] = []
    # Set in the biopsy loop beside acc_yh_fc; initialised here so a reorder cannot NameError.
    _biopsy_fc_label = "FORECAST"
    acc_y_cls: list[np.ndarray] = []
    acc_yh_cls: list[np.ndarray] = []
    acc_months = []
    time_idx = -1
    if viz and stage_label:
        try:
            time_idx = sample_handler.channel_map.index(sample_handler.time_col)
        except Exception:
            logger.error(
                "Training: Failed to extract time index for diagnostic biopsy — skipping.",
                exc_info=True,
            )

    # C-181 (opt-in A/B): land mask for the gate loss, read from the priogrid (id_col) channel
    # via include_identities=True so it is North-Up aligned with the model tensor. None ⇒ off
    # (gate trained on the full zero-filled grid, the default).
    cls_valid_mask = None
    if config.get("cls_valid_mask"):
        _full = sample_handler.to_pytorch(device, include_identities=True)  # [B, T, C_full, H, W]
        _pg = sample_handler.channel_map.index(sample_handler.id_col)
        cls_valid_mask = _full[0, 0, _pg] > 0  # [H, W] bool — land cells

    # --- CORE SEQUENCE PROCESSING ---
    # #311: this is a TRAINING augmentation. `training_augmentation=False` is passed by the C-184
    # BatchNorm recalibration pass, whose whole purpose is to recompute BN running statistics —
    # buffers saved into the artifact and used at inference. Recomputing them on deliberately
    # corrupted inputs would put the treatment arm's BN layer on a different footing from the
    # control's for a reason that is not the hypothesis, and the run would look clean. Same defect
    # class as #289's, where the pushforward's extra forward wrote BN stats.
    _input_noise = config.get("input_noise_dropout") if training_augmentation else None
    result = _process_sequence(
        train_tensor,
        model,
        h,
        ctx.criterion_reg,
        ctx.criterion_class,
        ctx.multitaskloss_instance,
        idx,
        device,
        pbar=pbar,
        forensics=forensics,
        qs99_weight=config.get("qs99_weight"),
        qs99_tau=config.get("qs99_tau"),
        target_weights=config.get("target_weights"),
        ss_epsilon=ss_epsilon,
        cls_valid_mask=cls_valid_mask,
        decay_gate_weight=config.get("decay_gate_weight", 0.0),
        struct_penalty_weight=config.get("struct_penalty_weight", 0.0) or 0.0,
        # ADR-065 amend.: the point-body supervision window is driven ONLY by the validated
        # body_supervision + onset_lead/cessation_lag (C-194). Event threshold comes from the
        # binary-target derivation — the sole authority for "what is an event" (C-195).
        body_supervision=config.get("body_supervision", "all"),
        onset_lead=config.get("onset_lead", 0),
        cessation_lag=config.get("cessation_lag", 0),
        event_threshold=event_threshold_from_config(config),
        # C-200 (ADR-067): family parameter-prior ridge weight + prior logit (None ⇒ no-op).
        pi_penalty_weight=config.get("pi_penalty_weight"),
        pi_penalty_prior_logit=config.get("pi_penalty_prior_logit", 0.0),
        # EXP-4 (GTF): family + composition drive the scheduled-sampling feedback (only when ε>0).
        family=resolve_family(config.get("output_distribution", "standard")),
        ss_feedback=config.get("ss_feedback", "mean"),
        forecast_composition=config.get("forecast_composition", "self_zeroed"),
        gate_threshold=config.get("gate_threshold"),
        pushforward_weight=config.get("pushforward_weight", 0.0),
        pushforward_detach_state=config.get("pushforward_detach_state", False),
        ss_backprop_through_feedback=config.get("ss_backprop_through_feedback", False),
        # #308 GRAD-TRAJ follow-up: bound the feedback gradient per step. None (default) is a
        # no-op, so every existing arm is byte-identical.
        ss_feedback_grad_clip=config.get("ss_feedback_grad_clip"),
        ss_feedback_grad_sink=fed_grad_sink,
        # #311 input noise. `time_steps` is the DEPLOYMENT horizon, read explicitly rather than
        # hardcoded: the dropout accumulates over one rollout's worth of steps and then resets.
        # Read ONLY when the noise is on — so the off path never touches the key (byte-identical,
        # and callers without it keep working), while an enabled arm missing it fails loud rather
        # than silently falling back to a shadow default (C-85).
        input_noise_dropout=_input_noise,
        input_noise_segment=config["time_steps"] if _input_noise is not None else None,
        input_noise_channels=_noisable_channels(config) if _input_noise is not None else None,
    )
    step_total, step_reg, step_cls = result["per_step_losses"]

    # --- STAGE 5 DIAGNOSTIC: Lightweight midpoint biopsy ---
    if viz and stage_label:
        biopsy_start = max(0, (seq_len // 2) - 3)
        biopsy_end = min(seq_len - 1, biopsy_start + 6)

        # Re-run the midpoint steps in eval mode for diagnostic capture only
        model.eval()
        # ⛔ The biopsy is a DIAGNOSTIC and must not be able to kill a multi-hour run. Since
        # the forecast row started composing (`_family_composed_mean_log1p` above), this
        # block runs real family + composition code on live tensors, and the only `try` in
        # the region guards the time-index lookup ~80 lines up — a raise here aborted
        # `train()`. `finally` restores train mode: an escape that skipped `model.train()`
        # would leave the rest of the run in eval mode, which is far worse than a lost plot.
        _biopsy_ok = True
        try:
            h_diag = model.init_hTtime(hidden_channels=model.base, H=window_H, W=window_W).to(
                device
            )
            with torch.no_grad():
                for i in range(seq_len - 1):
                    t0 = train_tensor[:, i, :, :, :]
                    t1 = train_tensor[:, i + 1, :, :, :]
                    # ADR-060 I3 / C-157: the model was widened for statics — the diagnostic biopsy
                    # must re-attach them too, exactly like the main forward, or this forward
                    # crashes (N dynamic channels into an N+static-channel model).
                    t0_input = _attach_static_channels(t0[:, idx.feat, :, :], t0, idx)
                    output_diag = model(t0_input, h_diag)
                    t1_pred, t1_pred_class, h_diag = (
                        output_diag.reg,
                        output_diag.cls,
                        output_diag.h_next,
                    )

                    if biopsy_start <= i < biopsy_end:
                        y_reg = t1[:, idx.reg, :, :]
                        y_cls = t1[:, idx.cls, :, :]
                        acc_y_reg.append(y_reg[0].permute(1, 2, 0).cpu().numpy())
                        # A family head emits n_params channels/target; collapse to per-target
                        # log1p(E[y]) so the biopsy's body + E[y] rows are 3-channel like the truth
                        # and gate (else y_hat_cls * y_hat_reg mis-broadcasts and the forensic plot
                        # is skipped). Mirrors _emit_magnitude's family branch. Legacy = unchanged.
                        _yh_reg = t1_pred
                        _fam = resolve_family(config.get("output_distribution", "standard"))
                        if _fam is not None:
                            _yh_reg = _family_target_log1p_mean(t1_pred, _fam)  # [B, n_reg, H, W]
                        acc_yh_reg.append(_yh_reg[0].permute(1, 2, 0).cpu().numpy())
                        # ⛔ THE FORECAST ROW IS COMPOSED HERE, with the same helper the straight-
                        # through surrogate uses and deployment mirrors
                        # (`hydranet_inference._emit_magnitude`): log1p(compose_mean(E[Y], gate)).
                        # `biopsy_training_performance` used to form `gate × body` itself from the
                        # ALREADY-log1p body, and `gate · log1p(μ)` is not `log1p(gate · μ)` — they
                        # agree only where the gate is 1. Its docstring called that "the ACTUAL
                        # scored forecast", which is the C-303 shape, and it broke the standing
                        # instruction that a plot shows the actual forecast and never a misleading
                        # composition.
                        if _fam is not None:
                            _composition = config.get("forecast_composition", "self_zeroed")
                            _emit_core = bool(config.get("emit_family_core", False))
                            _yh_fc = _family_composed_mean_log1p(
                                t1_pred,
                                _fam,
                                torch.sigmoid(t1_pred_class),
                                _composition,
                                config.get("gate_threshold"),
                                emit_core=_emit_core,
                            )
                            _biopsy_fc_label = _biopsy_forecast_label(_composition, _emit_core)
                        else:
                            # Legacy point heads are retired by the scope lock and
                            # `_emit_magnitude` composes NOTHING for them ("identity — reg is
                            # already the log1p-space point prediction"), so there is no deployment
                            # rule to mirror. Keep the historical gate×body and SAY that is what it
                            # is, rather than inventing a composition for a path nobody runs.
                            _yh_fc = torch.sigmoid(t1_pred_class) * _yh_reg
                            _biopsy_fc_label = "FORECAST (legacy gate·log1p body)"
                        acc_yh_fc.append(_yh_fc[0].permute(1, 2, 0).cpu().numpy())
                        acc_y_cls.append(y_cls[0].permute(1, 2, 0).cpu().numpy())
                        acc_yh_cls.append(
                            torch.sigmoid(t1_pred_class[0]).permute(1, 2, 0).cpu().numpy()
                        )
                        if time_idx >= 0:
                            m_id = sample_handler.data[i + 1, 0, 0, time_idx]
                            acc_months.append(m_id)
        except Exception:
            _biopsy_ok = False
            logger.error(
                "Training: diagnostic biopsy failed — skipping the plot, training continues.",
                exc_info=True,
            )
        finally:
            model.train()

        if acc_y_reg and _biopsy_ok:
            # `forecast_label` names the composition the row was actually built with, so the
            # figure cannot claim a composition it did not apply.
            viz.biopsy_training_performance(
                np.stack(acc_y_reg),
                np.stack(acc_yh_reg),
                np.stack(acc_y_cls),
                np.stack(acc_yh_cls),
                stage_label,
                y_hat_forecast=np.stack(acc_yh_fc),
                forecast_label=_biopsy_fc_label,
                time_indices=acc_months,
            )

    # log each sequence/timeline/batch
    train_log(step_total, step_reg, step_cls)

    # RETURN LOSS COMPONENTS
    # `per_task` MUST be forwarded. It was not, and the per-task trajectory columns were
    # therefore inert in every real run: `training_loop` calls `train`, not `_process_sequence`,
    # so a hand-built dict here silently dropped it and `_pt_row` was always empty (C-324, found
    # by /code-review on PR #398 — inside the very PR whose purpose was to prevent one).
    #
    # The guard is `tests/test_trajectory_log_end_to_end.py`, which runs a real `training_loop`
    # with `trajectory_log_path` set and asserts the written CSV's per-task cells are populated,
    # finite, and sum to `loss_reg + loss_cls` in the same row. ⛔ Two AST guards stood here
    # first and were removed: comparing key NAMES to key NAMES cannot see a dropped VALUE, so
    # `"per_task": None` passed them (independent guard audit, PR #398).
    #
    # `task_names` is deliberately NOT forwarded. `training_loop` builds its header from config
    # and never reads it, so returning it would be dead plumbing — and the audit showed dead
    # plumbing is unobservable by construction: a mutation setting it to garbage survived
    # everything. `_process_sequence` still returns it, where it IS asserted.
    return {
        "total": result["total"],
        "reg": result["reg"],
        "cls": result["cls"],
        "per_task": result.get("per_task"),
    }


def _reset_bn_stats(model: nn.Module) -> int:
    """Reset every BatchNorm's running stats and set momentum=None (cumulative average over the
    subsequent forwards). Returns the number of BN layers reset."""
    n = 0
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
            n += 1
    return n


def _assert_bn_buffers_finite(model: nn.Module, context: str) -> None:
    """Refuse to let a recalibration pass hand back non-finite BatchNorm statistics.

    Both recal paths run forward-only, so the ADR-014 loss monitor is either skipped
    (`bn_recal_from`, S4/#357) or irrelevant — the loss is not consumed. That leaves the one
    thing a recal pass DOES produce, the BN buffers, unchecked: one non-finite activation on one
    forward poisons `running_mean`/`running_var` of every BN layer, and with `momentum=None`
    (cumulative average) they never recover. The state_dict is then saved, every log reads
    HEALTHY, and the first loud failure is at inference. Found by `/code-review max` on #372,
    end-to-end, after S4 removed the only (accidental) loud failure on that path.
    """
    bad = []
    for name, m in model.named_modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            for buf in ("running_mean", "running_var"):
                t = getattr(m, buf, None)
                if t is not None and not torch.isfinite(t).all():
                    bad.append(f"{name}.{buf}")
    if bad:
        err_msg = (
            f"[FATAL] {context}: BatchNorm recalibration produced non-finite running statistics "
            f"in {len(bad)} buffer(s): {bad[:6]}{' …' if len(bad) > 6 else ''}. These buffers "
            "ship inside the artifact and are used at inference; refusing to hand them back."
        )
        logger.error(err_msg)
        raise RuntimeError(err_msg)


def _recalibrate_bn(ctx: "TrainingContext", sampler, planner, config: dict) -> None:
    """C-184 fix: recompute BatchNorm running statistics post-training.

    The recurrent BN accumulates running stats over T-correlated timesteps during training, biasing
    them so eval-mode over-amplifies — the seed-bimodal eval collapse (~40% of trained seeds
    saturate the gate at eval; confirmed root cause + universal fix, register C-184). This resets
    the running stats and re-accumulates them FORWARD-ONLY (no weight change) over real curriculum
    windows, so eval-mode matches the true activation distribution. Validated 2026-06-27: flips
    6/6 bad seeds GOOD and preserves 2/2 good. Disable with config['bn_recalibrate'] = False.
    """
    model = ctx.model
    n_bn = _reset_bn_stats(model)
    n_windows = config.get("bn_recal_windows", config["windows_per_lesson"] * 10)
    logger.info(
        f"🔧 C-184: BN-recalibrating {n_bn} layers over {n_windows} windows "
        f"(forward-only, no weight change)"
    )
    with torch.no_grad():
        for w in range(n_windows):
            target, threshold = planner.get_lesson(w)
            batch, _ = sampler.get_batch(target, threshold, batch_size=1)
            # training_augmentation=False: this pass recomputes BN statistics on CLEAN data.
            # Every training-only augmentation is suppressed — the input noise (#311), the
            # random H/W flips, which are older and were polluting these buffers for as long as
            # `random_flips` and BN recalibration have coexisted (C-328 instance 4), and scheduled
            # sampling (C-328 instance 5). Dropout is NOT suppressed, on purpose: inference runs
            # MC-dropout (ADR-057), so the statistics must be estimated with it on — see `train()`.
            train(ctx, batch[0], None, stage_label="", training_augmentation=False)
            del batch
    model.eval()
    # Raises inside the caller's fail-safe, which restores the pre-recal buffers.
    _assert_bn_buffers_finite(model, "C-184 post-training recalibration")


def training_loop(
    config: dict,
    model: nn.Module,
    criterion: tuple,
    optimizer: torch.optim.Optimizer,
    scheduler: torch.optim.lr_scheduler._LRScheduler | None,
    handler: VolumeHandler,
    device: torch.device,
    run_timestamp: str | None = None,
) -> dict:
    """
    Orchestrates the training process over multiple stochastic samples.
    Returns a diagnostic summary dictionary.
    """
    criterion_reg, criterion_class, multitaskloss_instance = criterion

    ReproducibilityGate.lock_entropy(np_seed=config["np_seed"], torch_seed=config["torch_seed"])
    logger.info("🚀 Training initiated...")

    # Fail-loud (C-134): per-lesson metrics below are guarded by `if wandb.run is not None`,
    # which silently no-ops when no run is active. Warn so a missing train run is visible
    # rather than an empty dashboard. wandb is imported lazily here (C-12 pattern), matching
    # the per-lesson logging blocks below.
    import wandb

    if wandb.run is None:
        logger.warning(
            "⚠️ wandb.run is None at training start — per-lesson training metrics will NOT be "
            "logged to wandb. In a real run this means the training phase did not open a wandb "
            "run (see C-132/C-134); only expected under unit tests."
        )

    # Initialize Visual Truth Engine with Authoritative Timestamp
    viz = VisualDiagnostics(config, run_timestamp=run_timestamp)

    # Initialize Forensic Auditor (ADR 001 Custodian)
    forensics = TrainingForensics(config)

    # C-17: Bundle training components into context
    ctx = TrainingContext(
        model=model,
        optimizer=optimizer,
        scheduler=scheduler,
        criterion_reg=criterion_reg,
        criterion_class=criterion_class,
        multitaskloss_instance=multitaskloss_instance,
        config=config,
        device=device,
        viz=viz,
        forensics=forensics,
    )

    # OPT-IN BN-recalibration (C-184 test, 2026-06-27): load a trained artifact into `model`, reset
    # BN running stats, then run the lesson loop FORWARD-ONLY (skip backward + optimizer.step) to
    # re-accumulate BN stats on the real scaled windows. config.bn_recal_from=None (default) ⇒
    # normal training, byte-unchanged.
    _bn_recal = config.get("bn_recal_from")
    if _bn_recal:
        model.load_state_dict(torch.load(_bn_recal, map_location=device, weights_only=True))
        _reset_bn_stats(model)
        model.train()
        logger.info(f"🔧 BN-recal: loaded {_bn_recal}, reset BN, forward-only recompute")

    # Initialize the Sampler Components
    # 1. The Lens (Mechanical)
    sampler = VolumeSampler(handler, config)
    # 2. The Planner (Strategic)
    planner = CurriculumLearner(config, handler)
    log_curriculum_report(planner.subjects, planner.subject_maxima, config)

    # 1. Determine total steps upfront for a unified progress bar
    train_vol_shape = sampler.get_train_volume().shape
    seq_len = train_vol_shape[0]
    total_iterations = config["total_lessons"] * config["windows_per_lesson"] * (seq_len - 1)

    loss_history = []
    loss_history_reg = []
    loss_history_cls = []
    max_raw_grad_norm = 0.0

    # ADR-056: scheduled sampling mixer (disabled when ss_schedule is None)
    ss_mixer = None
    if config.get("ss_schedule") is not None:
        from views_hydranet.utils.scheduled_sampling import ScheduledSamplingMixer

        ss_mixer = ScheduledSamplingMixer(
            schedule=config["ss_schedule"],
            epsilon_max=config.get("ss_epsilon_max", 1.0),
            warmup_lessons=config.get("ss_warmup_lessons"),
            k=config.get("ss_k"),
            reverse=config.get("ss_reverse", False),
        )

    # OPT-IN trajectory diagnostic (bifurcation hunt): per-lesson grad-norm + gate-logit-mean +
    # losses → CSV. config.trajectory_log_path=None (default) ⇒ no hooks, no file, byte-unchanged.
    _traj_path = config.get("trajectory_log_path")
    _traj_file = _traj_writer = None
    # ⛔ `fed_max` starts at None, NOT 0.0. It measures gradient through the autoregressive
    # feedback wire, which `_attach_feedback_grad_clip` only ever feeds when
    # `ss_backprop_through_feedback` is True — and that defaults False
    # (`config_initializer.py:266`) and is set by no roster config. A 0.0 initialiser therefore
    # wrote a real-looking zero on every production run, making "the wire is off" and "the wire
    # is on and the gradient died" the same three characters in the CSV. This repo's own
    # validator docstrings say so four times — "fed_grad_max logs a constant 0.0 that reads as a
    # healthy gradient" — and two validators exist to block the two DANGEROUS configurations
    # while the ordinary one, which is every run we ship, kept emitting it. None ⇒ blank cell
    # ⇒ `read_csv` gives NaN ⇒ "not measured", which is the truth. Matches the per-task columns,
    # which already blank rather than zero when a value is unavailable.
    _traj_acc: dict = {"gate_sum": 0.0, "gate_n": 0, "fed_max": None}
    _traj_task_cols: list[str] = []
    if _traj_path:
        import csv as _csv

        def _gate_hook(_m, _i, _o):
            if _m.training:  # training forwards only — skip forensic/eval biopsies
                _traj_acc["gate_sum"] += _o.detach().mean().item()
                _traj_acc["gate_n"] += 1

        for _hn in ("dec_conv4_head1_class", "dec_conv4_head2_class", "dec_conv4_head3_class"):
            dict(model.named_modules())[_hn].register_forward_hook(_gate_hook)
        _traj_file = _open_trajectory_file(_traj_path)
        _traj_writer = _csv.writer(_traj_file)
        # Header at OPEN, from config, with a FIXED column count. An earlier version deferred it
        # to the first data row so the task names could come from the window's channel map, on the
        # premise that config was a SECOND source of truth that might disagree about order.
        # ⛔ That premise was false: `_SequenceIndices.__init__` assigns
        # `self.reg_names = config["regression_targets"]` — the same list object — and
        # `losses_list` is built `for j in range(idx.n_reg)` then `range(idx.n_cls)`. So config IS
        # the order the balancer sums in, there is no second source, and the comparison the
        # deferred version justified itself with could never have failed. (A guard that cannot
        # fire reads as protection and is worse than none — it was deleted; pinned instead by
        # `test_sequence_indices_names_are_the_config_lists`.)
        # Writing the header here also means a run that aborts before lesson 1 (the C-312
        # non-finite exit, or IntegrityGuardian) still leaves a parsable file rather than 0 bytes.
        _traj_task_cols = _trajectory_task_columns(config)
        _traj_writer.writerow(_TRAJECTORY_BASE_COLUMNS + _traj_task_cols)
        _traj_file.flush()
        logger.info(f"📈 trajectory-log ON → {_traj_path}")

    # The feedback-gradient sink exists ONLY while the trajectory log does: reading each step's
    # norm forces a device sync ~383 times per window, which is not a cost a production arm should
    # pay for a diagnostic it never reads. `ss_feedback_grad_clip` is independent of it — the clip
    # acts whether or not anything is watching.
    _fed_sink: list[float] | None = [] if _traj_writer is not None else None

    # The optional trajectory CSV must close on ANY exit from the lesson loop, not just the happy
    # one. `IntegrityGuardian.monitor` has always been able to raise from inside this loop, and the
    # C-312 non-finite check adds a second such exit; neither reached the `close()` below.
    _traj_cleanup = contextlib.ExitStack()
    if _traj_file is not None:
        _traj_cleanup.callback(_traj_file.close)

    with (
        _traj_cleanup,
        tqdm(
            total=total_iterations, desc="👾 Training HydraNet", unit="month", leave=True
        ) as pbar,
    ):
        # Loop over Strategic Lessons
        for lesson_idx in range(config["total_lessons"]):
            optimizer.zero_grad()  # Reset gradients at start of Lesson
            lesson_loss = torch.tensor(0.0).to(device)
            lesson_reg = 0.0
            lesson_cls = 0.0
            lesson_per_task = None
            windows_trained = 0  # C-312: how many windows actually backpropagated

            # ADR-056: compute epsilon once per lesson
            ss_epsilon = ss_mixer.get_epsilon(lesson_idx) if ss_mixer is not None else 0.0
            # C-328 instance 5 (S3/#356): a `bn_recal_from` pass must not substitute the model's
            # own predictions for ground truth while it re-accumulates BN statistics. Zeroed HERE,
            # once, so the value passed to `train()` and the value logged to wandb are the same
            # object — the first version zeroed only the kwarg and logged the schedule's live eps,
            # so the run's own record asserted SS was active on the pass whose buffers ship.
            if _bn_recal:
                ss_epsilon = 0.0

            # Pull one lesson per window in the batch (The Mixed Salad)
            for window_idx in range(config["windows_per_lesson"]):
                # 1. Handshake with Planner
                global_step_idx = lesson_idx * config["windows_per_lesson"] + window_idx
                target, threshold = planner.get_lesson(global_step_idx)

                # 2. Handshake with Lens
                batch, qualified_cells = sampler.get_batch(target, threshold, batch_size=1)
                sample_handler = batch[0]

                # DIAGNOSTIC: Stage 4 (Sampling)
                # We biopsy every window to verify geometry and variety
                viz.biopsy_sample(
                    sample_handler,
                    handler,
                    f"Stage 4: Training Window {window_idx + 1} "
                    f"(Lesson {lesson_idx + 1} Target {target})",
                )

                # Update progress bar
                pbar.set_description(
                    f"👾 Training | Lesson {lesson_idx + 1}/{config['total_lessons']} | "
                    f"Window {window_idx + 1}/{config['windows_per_lesson']} | "
                    f"Target: {target} | Threshold: {threshold}"
                )

                # 3. Process Window (Accumulate Loss)
                # Pass viz to capture training dynamics (Stage 5) for all windows
                slbl = f"Stage 5: Training Forensic (Lesson {lesson_idx + 1}_Win {window_idx + 1})"
                losses = train(
                    ctx,
                    sample_handler,
                    pbar,
                    stage_label=slbl,
                    # Already 0.0 on a recal pass (zeroed where it is computed, above), and
                    # `train()` zeroes it again on `training_augmentation=False` regardless.
                    ss_epsilon=ss_epsilon,
                    fed_grad_sink=_fed_sink,
                    # C-328: a `bn_recal_from` run drives THIS loop forward-only to re-accumulate
                    # BatchNorm statistics, so it is a recalibration pass even though it is not
                    # `_recalibrate_bn`. It leaves autograd ENABLED (it skips backward, it does not
                    # disable grad), which is why a grad-state assertion cannot reach it — the
                    # first fix for C-328 covered one of the two recalibration paths.
                    training_augmentation=not _bn_recal,
                )

                # --- MEMORY-SAFE ACCUMULATION (ADR 014 Hardening) ---
                # C-312: this guard used to read `if w_loss > 0`, which is NOT the question
                # ADR-014 means to ask. MultiTaskLoss adds `log(stds)`, negative once a task fits
                # well (per task, the term is negative for `L < (r+1)/e`), so with the balancer
                # unfrozen a perfectly healthy window scores below zero and the whole backward was
                # skipped in silence — measured at 2 updates across 6 lessons. The question is
                # "did this window have anything to learn from", i.e. is the loss exactly zero,
                # which is what an all-masked / empty window produces. Under the production config
                # (`freeze_multitask_balancer=True` pins log_vars at 0, so every term is >= 0)
                # `!= 0` and `> 0` select identically. NOTE "every term is >= 0" holds in float32,
                # where mtloss's `log(stds + eps)` = `log(1 + 1e-8)` rounds to exactly 0.0; in
                # float64 it is +1e-8 per task, still >= 0, so the equivalence survives either way.
                # The test does not re-derive this — it observes every window's actual total. See
                # tests/train/test_backward_gate.py
                # ::test_the_new_guard_is_byte_identical_when_frozen.
                w_loss = losses["total"]
                if _bn_recal:
                    # BN-recal is forward-only: no backward, and no reason to abort the pass over
                    # a non-finite loss nobody consumes. Kept OUT of the finiteness check below so
                    # a `bn_recal_from` run behaves exactly as it did before this fix.
                    pass
                elif not torch.isfinite(w_loss):
                    # RuntimeError, not ValueError: IntegrityGuardian.monitor raises RuntimeError
                    # on the same condition a few lines below, and one fail-loud channel is worth
                    # more than a more precise exception type nobody catches.
                    err_msg = (
                        f"Lesson {lesson_idx + 1} window {window_idx + 1}: loss is "
                        f"{w_loss.item()}, not a finite number. Refusing to backpropagate NaN/inf "
                        "into the model — this is a bug upstream in the loss (cf. C-212), not a "
                        "skippable window. The old `if w_loss > 0` guard swallowed it silently."
                    )
                    logger.error(err_msg)
                    raise RuntimeError(err_msg)
                elif w_loss.item() == 0.0:
                    # Reachable only when EVERY term is exactly zero. Under the production config
                    # the classification terms are scored on the full grid with no mask, so an
                    # all-zero target still yields a small non-zero BCE and this branch does not
                    # fire — i.e. in production every window backpropagates, which is the intent.
                    # It stays because a masked / genuinely empty window must not cost a backward.
                    logger.debug(
                        f"Lesson {lesson_idx + 1} window {window_idx + 1}: loss is exactly 0 "
                        "(nothing supervised) — no backward, as ADR-014 intends."
                    )
                else:
                    w_loss.backward()
                    windows_trained += 1
                    # The hooks fire DURING backward, so the sink is only populated here. Max, not
                    # mean: one step's blow-up is what overflows float32, and a mean over ~383
                    # steps would bury it.
                    _traj_acc["fed_max"] = _merge_fed_max(_traj_acc["fed_max"], _fed_sink)
                if _fed_sink is not None:
                    _fed_sink.clear()

                lesson_loss += w_loss.detach()  # Keep track of magnitude for logging
                lesson_reg += losses["reg"].item()
                lesson_cls += losses["cls"].item()
                if losses.get("per_task") is not None:
                    _pt = losses["per_task"].detach().cpu().numpy()
                    lesson_per_task = _pt if lesson_per_task is None else lesson_per_task + _pt

                # --- PER-WINDOW MEMORY RELEASE (C-07) ---
                del sample_handler, losses, w_loss

            # --- THE OPTIMIZATION GATE (ADR 014) ---
            # C-312: gated on whether gradient was actually produced, not on the SIGN of the
            # accumulated loss. `or _bn_recal` preserves the pre-fix behaviour of the recal pass,
            # which enters this block for its diagnostics but is separately barred from stepping.
            if windows_trained > 0 or _bn_recal:
                # NUMERICAL AUDIT: Hard stop on explosion.
                #
                # S4/#357: skipped on a recalibration pass. `lesson_loss` accumulates
                # unconditionally, so one non-finite window makes it NaN — but a recal pass
                # consumes no loss and computes no gradient, so a NaN loss there is not evidence
                # of anything about the weights (which came from a checkpoint and survive an
                # abort either way). What a recal pass DOES produce, the BN buffers, is checked
                # at both recal exits by `_assert_bn_buffers_finite` — the monitor never looked at
                # those. (An earlier version of this comment claimed aborting would "throw away"
                # the buffers; it would not, and the #372 review said so.)
                #
                # ⚠️ The gate itself is NOT the defect and must stay: `windows_trained` can
                # never increment on a recal pass (it is only bumped in the
                # `else: w_loss.backward()` arm the branch above short-circuits), so dropping
                # `or _bn_recal` would skip the whole tail — including the trajectory row and
                # `forensics.finalize_lesson()` a recal run legitimately produces. The narrow
                # exclusion is the fix.
                if not _bn_recal:
                    IntegrityGuardian.monitor(
                        model, torch.tensor([0.0]), lesson_loss, context=f"Lesson {lesson_idx}"
                    )

                loss_history.append(lesson_loss.item())
                loss_history_reg.append(lesson_reg / config["windows_per_lesson"])
                loss_history_cls.append(lesson_cls / config["windows_per_lesson"])

                # DIAGNOSTIC: Update Dynamic Loss Curves
                viz.biopsy_loss_curves(
                    loss_history_reg, loss_history_cls, loss_history, f"Lesson {lesson_idx + 1}"
                )

                # DIAGNOSTIC: Finalize Forensic Auditor and Trigger Dossiers
                forensics.finalize_lesson()
                logger.info(
                    f"📊 Training: Finalized Forensic Lesson {lesson_idx + 1}. "
                    f"Generating {len(forensics.history)} dossiers..."
                )
                for key, meta in forensics.target_map.items():
                    dossier = forensics.get_dossier(key)
                    viz.biopsy_feature_dossier(
                        meta["name"], dossier, f"Lesson {lesson_idx + 1}", target_type=meta["type"]
                    )

                # --- 1. Audit Raw Gradient Energy BEFORE Clipping ---
                total_norm = 0.0
                for p in model.parameters():
                    if p.grad is not None:
                        param_norm = p.grad.detach().data.norm(2)
                        total_norm += param_norm.item() ** 2
                raw_grad_norm = total_norm**0.5
                max_raw_grad_norm = max(max_raw_grad_norm, raw_grad_norm)

                # OPT-IN trajectory row (pre-clip grad-norm + lesson gate-logit-mean + losses)
                if _traj_writer is not None:
                    _gm = _traj_acc["gate_sum"] / max(_traj_acc["gate_n"], 1)
                    _pt_row = _trajectory_per_task_cells(
                        lesson_per_task, len(_traj_task_cols), config["windows_per_lesson"]
                    )
                    _traj_writer.writerow(
                        [
                            lesson_idx,
                            raw_grad_norm,
                            lesson_reg / config["windows_per_lesson"],
                            lesson_cls / config["windows_per_lesson"],
                            _gm,
                            "" if _traj_acc["fed_max"] is None else _traj_acc["fed_max"],
                        ]
                        + _pt_row
                    )
                    _traj_file.flush()
                    _traj_acc["gate_sum"] = 0.0
                    _traj_acc["gate_n"] = 0
                    _traj_acc["fed_max"] = None

                # Gradient Clipping. C-314: the threshold used to be the literal 1.0 while the
                # only config field was the on/off bool, so it could not be tuned from a config at
                # all. `clip_grad_max_norm` defaults to 1.0, so every existing config is unchanged.
                # NOTE (still open, C-314): this covers `model.parameters()` only — the balancer's
                # `log_vars` are a separate optimizer param group and are clipped by nothing.
                #
                # S4/#357: this also runs on a recalibration pass, which the pre-C-312 gate
                # (`if lesson_loss > 0`) could skip. Verified harmless: a recal pass runs no
                # backward, so every `.grad` is None, `clip_grad_norm_` returns total_norm 0.0 and
                # changes no weight. Left in the gate rather than excluded, because an exclusion
                # would be a second special case earning nothing.
                if config.get("clip_grad_norm"):
                    torch.nn.utils.clip_grad_norm_(
                        model.parameters(), max_norm=config.get("clip_grad_max_norm", 1.0)
                    )

                # Optimize (Update Weights) — skipped in BN-recal (weights frozen, BN only)
                if not _bn_recal:
                    optimizer.step()

                # ADR-055 / #99: log per-target dispersion once per lesson — sigma for
                # tobit/lognormal, theta for hurdle-NB (TruncatedNBLoss) — whichever the loss
                # exposes. (getattr-guarded so a loss without one doesn't crash the logger.)
                if isinstance(criterion_reg, dict):
                    import wandb

                    if wandb.run is not None:
                        disp_log = {}
                        for name, loss_fn in criterion_reg.items():
                            if hasattr(loss_fn, "sigma"):
                                disp_log[f"sigma/{name}"] = loss_fn.sigma
                            if hasattr(loss_fn, "theta"):
                                disp_log[f"theta/{name}"] = loss_fn.theta
                        if disp_log:
                            wandb.log(disp_log)

                # Issue #48: log multi-task loss weights once per lesson
                import wandb

                if wandb.run is not None:
                    mtl_names = config.get("regression_targets", []) + config.get(
                        "classification_targets", []
                    )
                    mtl_log_vars = multitaskloss_instance.log_vars.detach()
                    wandb.log(
                        {f"mtl_log_var/{n}": lv.item() for n, lv in zip(mtl_names, mtl_log_vars)}
                    )

            # ADR-056: log scheduled sampling epsilon once per lesson (outside loss gate)
            if ss_mixer is not None:
                import wandb

                if wandb.run is not None:
                    wandb.log({"ss_epsilon": ss_epsilon})

            # Step scheduler at the end of the lesson if it exists
            if scheduler is not None:
                scheduler.step()

    logger.info("✅ Training complete!")

    # (the trajectory CSV is closed by _traj_cleanup on every exit path, including exceptions)

    # C-184 FIX: post-training BN recalibration (default ON). Mutates `model` in place so the saved
    # artifact has corrected BN running stats (fixes the seed-bimodal eval collapse). Skipped for a
    # bn_recal_from-only experiment run (its lesson loop already recalibrated). Guarded: a recal
    # failure must NEVER lose a completed training run — snapshot the BN buffers first and restore
    # them on any error (so a half-reset model is never saved), then proceed to save as-is.
    # The default is repeated here DELIBERATELY, against the usual no-shadow-default rule, and the
    # reason is a regression this line already caused once. Dropping it made
    # `config.get("bn_recalibrate")` return None for any caller passing a plain dict — every test
    # fixture and every research driver — which SILENTLY SKIPPED the C-184 mitigation entirely.
    # A shadow default risks divergence from the schema; no default at all risks the mitigation
    # not running. The second is far worse, so the default stays, and
    # `test_the_code_default_matches_the_schema_default` pins the two equal so they cannot drift.
    if config.get("bn_recalibrate", True) and not _bn_recal:
        _bn_snapshot = {
            k: v.clone()
            for k, v in model.state_dict().items()
            if "running_" in k or "num_batches" in k
        }
        try:
            _recalibrate_bn(ctx, sampler, planner, config)
        except Exception:
            logger.error(
                "C-184 BN-recalibration FAILED — restoring pre-recal BN stats and saving the "
                "trained model as-is (training NOT lost).",
                exc_info=True,
            )
            model.load_state_dict(_bn_snapshot, strict=False)
            model.eval()

    # A `bn_recal_from` run exists only to produce BN buffers, and the caller saves them next. No
    # fail-safe wraps this path (the weights came from a checkpoint that survives an abort), so a
    # non-finite buffer must raise here, before torch.save.
    if _bn_recal:
        _assert_bn_buffers_finite(model, f"bn_recal_from={_bn_recal}")

    # 4. Final weight audit
    weight_norms = {}
    for name, param in model.named_parameters():
        if "weight" in name and param.requires_grad:
            weight_norms[name] = param.data.norm().item()

    # ADR-037: Health Constellation radar plot of L2 norms per functional block
    viz.biopsy_health_constellation(weight_norms, "End of Training")

    return {
        "final_loss": loss_history[-1] if loss_history else 0.0,
        "min_loss": min(loss_history) if loss_history else 0.0,
        "max_loss": max(loss_history) if loss_history else 0.0,
        "max_raw_grad_norm": max_raw_grad_norm,
        "loss_history": loss_history,
        "weight_norms": weight_norms,
        "learning_rate": optimizer.param_groups[0]["lr"],
    }
