"""Judge one target tensor against its recorded reference (torch side of verify).

Order, as torchtitan's verifier does it: shape, dtype, NaN/Inf positions, then values. Values are
compared elementwise with the tolerance (tolerance.py); a value outside it may still pass as
``noisy`` (within 2× the reference's own run-to-run difference: the target can't be asked for
less) or ``golden-pass`` (RMSE against the fp64 golden no worse than k× the reference's own, the
dynamo/torchtitan gate). A value whose tensor was beyond the record's budget is compared on its
sketch (``basis="sample"``) and its NaN/Inf counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import torch
from msgspec.structs import replace

from envsnap.inprocess.bundle.model import Leaf
from envsnap.inprocess.capture import STATE
from envsnap.inprocess.fp32_math import REDUCED_MATH, TOLERANCE
from envsnap.inprocess.metrics import Metrics, sketch_metrics, sketch_of, tensor_metrics
from envsnap.inprocess.tensor_stats import dtype_name, tensor_stats
from envsnap.inprocess.tolerance import (
    EPS,
    Tolerance,
    default_tolerance,
    golden_factor,
    looser,
    lower_precision,
    resolve,
)
from envsnap.inprocess.verify.report import (
    CAST_MARK,
    PADDED,
    REPRESENTATION,
    STATE_UNDER_CAST,
    ValueCheck,
    ValueMetrics,
    ValueStatus,
)

NOISE_FACTOR = 2.0

CODE_KEY = ".<code>#"
"""In the key of a value made in a module's own code (capture.Capture._code_value)."""
CODE_LOOKAHEAD = 4
"""How many recorded code values on a target code value may skip to find its counterpart."""


def aligned_code_key(
    recorded: Mapping[str, Leaf], shifts: dict[str, int], name: str, call: int, shape: tuple[int, ...]
) -> str:
    """The recorded key to compare a target's ``call``-th value of ``name`` (a module's own code)
    with. Code values are numbered in the order the code makes them; another code path (eager
    attention builds a causal mask sdpa never makes) shifts every later number. So a value whose
    shape differs from the recorded one at its number is paired with the next recorded value of its
    shape a few numbers on (those in between have no counterpart: the judge says so), or, when none
    is, counted as extra, and the numbering continues aligned. ``shifts`` (per name: recorded index
    minus target index) is the caller's running state: the verify sink's, and the float64 golden's
    replay's own, so that a replay of the same code pairs its values with the same keys."""
    shift = shifts.get(name, 0)
    index = call + shift

    def fits(i: int) -> bool:
        leaf = recorded.get(f"{name}#{i}")
        return leaf is not None and tuple(leaf.stats.shape) == shape

    if fits(index) or f"{name}#{index}" not in recorded:
        return f"{name}#{index}"
    ahead = next((k for k in range(1, CODE_LOOKAHEAD + 1) if fits(index + k)), None)
    if ahead is not None:
        shifts[name] = shift + ahead
        return f"{name}#{index + ahead}"
    shifts[name] = shift - 1
    return f"{name}#{index}+{call}"  # extra: not in the recording


STATE_KEY = f"{STATE}#"
"""In the key of a module's state after the block (capture.Capture.state)."""


def _kind(dtype: str) -> str:
    """bool, integer or floating: a change of kind is another representation, not a cast."""
    if dtype == "bool":
        return "bool"
    return "float" if dtype.startswith(("float", "bfloat", "complex")) else "int"


def tolerance_name(key: str) -> str:
    """The name tolerances are matched on: the module path, or ``tap:name``."""
    return key.split("#", 1)[0]


def _metrics(m: Metrics) -> ValueMetrics:
    return ValueMetrics(
        max_abs=m.max_abs,
        max_rel=m.max_rel,
        rmse=m.rmse,
        cosine=m.cosine,
        sqnr_db=m.sqnr_db,
        outside=m.outside,
        compared=m.compared,
        nonfinite_mismatch=m.nonfinite_mismatch,
    )


Inherited = tuple[Tolerance, str]
"""A looser tolerance flowing from upstream values, and where it came from."""


def _tolerance(
    key: str,
    dtype: str,
    recorded: str,
    overrides: Mapping[str, Tolerance],
    inherited: Inherited | None,
    autocast: str | None,
    reduced: tuple[str, str] | None = None,
) -> tuple[Tolerance, str, str | None]:
    """(rtol, atol), where it came from, and the cast (a dtype change) it accounts for."""
    tolerance, source = resolve(tolerance_name(key), recorded, overrides)
    cast = None
    if dtype != recorded:
        lower = lower_precision(dtype, recorded)
        if lower is not None:
            how = f"autocast to {autocast}" if autocast else f"cast to {dtype}"
            cast = f"{how} (recorded {recorded})"
            if not source.startswith("override"):
                tolerance, source = default_tolerance(lower), f"{lower} default: {cast}"
    elif reduced is not None and recorded == "float32" and not source.startswith("override"):
        form, why = reduced
        wider = looser(tolerance, TOLERANCE[form])
        if wider != tolerance:
            tolerance, source = wider, f"{form} default: {REDUCED_MATH}: {why}"
    if inherited is not None and not source.startswith("override"):
        wider = looser(tolerance, inherited[0])
        if wider != tolerance:
            tolerance, source = wider, inherited[1]
    return tolerance, source, cast


def check_value(
    key: str,
    target: torch.Tensor,
    leaf: Leaf,
    reference: torch.Tensor | None,
    golden: torch.Tensor | None,
    overrides: Mapping[str, Tolerance],
    *,
    compare: Callable[[str, Any, Any], Any] | None = None,
    inherited: Inherited | None = None,
    autocast: str | None = None,
    reduced: tuple[str, str] | None = None,
) -> ValueCheck:
    """The check of ``target`` against the recorded ``leaf`` (``reference``: its kept tensor).

    ``compare`` transforms (target, reference) first (verify(compare=...)); ``inherited`` is a
    looser tolerance flowing from upstream values; ``autocast`` the dtype autocast was producing;
    ``reduced`` the (format, why) of reduced float32 math that reached the value's module call
    (fp32_math.py: TF32 allowed on either side), whose tolerance is used only where float32's fails.
    """
    if reduced is not None:  # float32's tolerance first: TF32's only where it fails
        at_float32 = check_value(
            key,
            target,
            leaf,
            reference,
            golden,
            overrides,
            compare=compare,
            inherited=inherited,
            autocast=autocast,
        )
        if at_float32.status != "fail" or at_float32.metrics is None:
            return at_float32
    ref = leaf.stats
    dtype = dtype_name(target.dtype)
    (rtol, atol), source, cast = _tolerance(key, dtype, ref.dtype, overrides, inherited, autocast, reduced)
    shape = tuple(int(d) for d in target.shape)
    check = ValueCheck(
        key=key,
        status="pass",
        shape=shape,
        dtype=dtype,
        rtol=rtol,
        atol=atol,
        tolerance_from=source,
        noise_max_abs=leaf.noise_max_abs,
        cast=cast,
    )
    if shape != ref.shape:
        trimmed = _zero_padded(target, ref.shape) if reference is not None else None
        if trimmed is None:
            return replace(check, status="fail", reason=f"shape {list(shape)} ≠ recorded {list(ref.shape)}")
        target, dim = trimmed
        extra = shape[dim] - ref.shape[dim]
        check = replace(
            check,
            reason=f"{PADDED}: the target's {extra} extra positions along dim {dim} "
            f"(shape {list(shape)}, recorded {list(ref.shape)}) are all zeros",
        )
    if dtype != ref.dtype and cast is None:
        if CODE_KEY in key and _kind(dtype) != _kind(ref.dtype):
            # A tensor made in a parent's own code (a mask, mostly) in another representation:
            # HF's sdpa path builds a bool mask where eager builds an additive float one. Not a
            # number that changed; the modules that take it are compared.
            return replace(check, status="skipped", reason=f"{REPRESENTATION}: {dtype}, recorded {ref.dtype}")
        return replace(check, status="fail", reason=f"dtype {dtype} ≠ recorded {ref.dtype}")
    if target.device.type == "meta" or ref.finite is None or target.is_complex():
        return replace(
            check,
            status="skipped",
            reason="no values to compare (empty or meta tensor, or no recorded values)",
        )
    scale = ref.l2 / math.sqrt(ref.numel) if ref.l2 is not None and ref.numel else 0.0
    if reference is not None:
        expected = reference.to(target.device)
        if compare is not None:
            chosen = compare(key, target, expected)
            if chosen is None:
                return replace(check, status="skipped", reason="skipped by compare=")
            if (
                not isinstance(chosen, tuple)
                or len(chosen) != 2
                or not all(isinstance(t, torch.Tensor) for t in chosen)
            ):
                raise ValueError(f"compare= must return (target, reference) tensors or None (for {key})")
            target, expected = chosen
            golden = None  # the golden gate needs the whole tensor
            if tuple(target.shape) != tuple(expected.shape):
                return replace(
                    check,
                    status="fail",
                    reason=f"compare= gave shapes {list(target.shape)} and {list(expected.shape)}",
                )
        metrics = tensor_metrics(target, expected, rtol, atol, scale)
        t_full, e_full = target, expected

        def past(looser: float) -> int:
            return tensor_metrics(t_full, e_full, looser, 2 * atol, scale).outside

        check = replace(check, basis="full")
    else:
        metrics = sketch_metrics(sketch_of(target), ref.sketch, rtol, atol, scale)
        t_sketch = sketch_of(target)

        def past(looser: float) -> int:
            return sketch_metrics(t_sketch, ref.sketch, looser, 2 * atol, scale).outside

        now = tensor_stats(target)
        if (now.nan, now.posinf, now.neginf) != (ref.nan, ref.posinf, ref.neginf):
            metrics.nonfinite_mismatch += 1
        check = replace(check, basis="sample")
    check = replace(check, metrics=_metrics(metrics))
    if metrics.nonfinite_mismatch:
        return replace(
            check, status="fail", reason=f"NaN/Inf positions differ ({metrics.nonfinite_mismatch})"
        )
    if metrics.outside == 0:
        return check
    outside = (
        f"{metrics.outside} of {metrics.compared} elements outside rtol={rtol:g}, atol={atol:g} "
        f"(+ rtol × the tensor's RMS {scale:.3g}; {source})"
    )
    whole = _cast_as_a_whole(metrics, source, rtol, scale, past)
    if whole is not None:
        return replace(check, reason=f"{outside}; {whole}")
    noise = leaf.noise_max_abs
    if noise and metrics.max_abs <= NOISE_FACTOR * noise:
        reason = f"{outside}, but within {NOISE_FACTOR:g}× the reference's own run-to-run noise"
        return replace(check, status="noisy", reason=reason)
    ratio = _golden_ratio(target, leaf, golden) if compare is None or reference is None else None
    if ratio is not None:
        k = golden_factor(ref.dtype)
        if ratio[1] <= k * ratio[2] + atol / 10:
            reason = f"{outside}, but no worse than {k:g}× the reference's error against fp64"
            return replace(check, status="golden-pass", golden_ratio=ratio[0], reason=reason)
        reason = f"{outside}; {ratio[0]:.3g}× the reference's error against fp64 (gate {k:g}×)"
        return replace(check, status="fail", golden_ratio=ratio[0], reason=reason)
    if STATE_KEY in key and _of_cast(source):
        # A parameter a step moved under a cast: the update is a gradient summed in the lower
        # dtype, whose cancellation leaves a bias that starts at 0 (all update) at ~17 dB in
        # bf16; there is no bound to hold it to. Said, not failed: the outputs on the way are.
        return replace(check, status="skipped", reason=f"{STATE_UNDER_CAST}: {outside}")
    return replace(check, status="fail", reason=outside)


def _zero_padded(target: torch.Tensor, recorded: tuple[int, ...]) -> tuple[torch.Tensor, int] | None:
    """(target cut to the recorded length, the dim) when it is longer along one dim only, and zeros there.

    A static KV cache allocates its full length up front, so attention weights over it have the
    cache's length where a dynamic cache has the tokens seen so far; the unused slots are masked
    to exactly zero. Nothing recorded is lost by comparing the leading part, and the zeros are
    checked exactly, so a target that puts anything there still fails by shape.
    """
    if target.dim() != len(recorded):
        return None
    longer = [d for d, (n, r) in enumerate(zip(target.shape, recorded, strict=True)) if n != r]
    if len(longer) != 1 or target.shape[longer[0]] < recorded[longer[0]]:
        return None
    dim = longer[0]
    extra = target.narrow(dim, recorded[dim], target.shape[dim] - recorded[dim])
    if extra.is_complex() or extra.device.type == "meta" or bool(extra.any()):
        return None
    return target.narrow(dim, 0, recorded[dim]), dim


def _of_cast(source: str) -> bool:
    """Whether a tolerance is a cast's, its own or inherited (never an override)."""
    return not source.startswith("override") and any(
        f"default: {how}" in source for how in ("cast to ", "autocast to ", REDUCED_MATH)
    )


CAST_OUTLIERS = 0.01
"""A cast's value may have this fraction of its elements past twice the cast's elementwise bound
(the tail of the rounding errors a chain of lower-precision ops accumulates) when its error RMS is
in bounds; between one and two bounds, any number (the RMS holds them)."""


def _cast_as_a_whole(
    metrics: Metrics, source: str, rtol: float, scale: float, past: Callable[[float], int]
) -> str | None:
    """Why a cast's value passes although some elements are past the elementwise bound; None: it doesn't.

    The bound holds one rounding of the lower dtype; a bf16 model run against an fp32 recording
    accumulates one per op (independent roundings: error ~ sqrt(ops)), so after a dozen ops a few
    elements stray past it while the tensor as a whole is as close as bf16 allows (the trial on
    HF GPT-2 and Llama: 1 of 1536 and 3 of 3072 elements, SQNR 45 dB). The value passes when its
    error RMS is within the cast's limit × the reference's RMS (``_cast_rms_limit``: bf16 1.6e-2,
    SQNR ≥ 36 dB; a 5% bug is ~26 dB) and at most 1% of its elements are past *twice* the cast's
    bound (``past(r)``: elements past atol·2 + r·(|x| + RMS)). Why twice: accumulated rounding with
    the error RMS near its limit leaves a few % of elements between one and two bounds (trial 3:
    model.half() Qwen2, Phi3, CLIP, Wav2Vec2 and an MLP; trial 2: a train-mode BatchNorm in bf16,
    1.4-2.9%), while a change concentrated on a few elements lands many bounds out (a 5% LayerNorm
    change: 97% of elements past 3×) and still fails. Only at the cast's dtype default, on the
    cast's values and those downstream that inherit it (never under an override); TF32 math
    (fp32_math.py) is a cast of the matmul's inputs and is judged the same way.
    """
    # The cast's own values, or values downstream of it that inherited its tolerance.
    if not _of_cast(source) or scale <= 0 or not metrics.compared:
        return None
    relative = metrics.rmse / scale
    limit = _cast_rms_limit(source, rtol)
    if relative > limit:
        return None
    far = past(2 * limit)
    if far > CAST_OUTLIERS * metrics.compared:
        return None
    return (
        f"{CAST_MARK}: error RMS {relative:.2g} of the reference's (≤ {limit:.2g}), "
        f"{metrics.outside / metrics.compared:.2%} of elements out, "
        f"{far / metrics.compared:.2%} past twice the cast's bound (≤ 1%)"
    )


CAST_EPSILONS = (("bfloat16", EPS["bfloat16"]), ("float16", EPS["float16"]), ("tf32", EPS["float16"]))
"""Machine epsilon of the formats a cast's tolerance is named after (bfloat16 first: its name
contains float16's); TF32 reads float16's 10 mantissa bits."""


def _cast_rms_limit(source: str, rtol: float) -> float:
    """The error RMS (relative to the reference's RMS) a cast's value is held to as a whole.

    rtol, but at least 2 machine epsilons (4 unit roundoffs) of the cast's format: assert_close's
    bf16 rtol (1.6e-2) is already that, its fp16 rtol (1e-3) only half of it, so fp16 values deep
    in a model (a SwiGLU product, attention projections after a few layers) sat at SQNR 59-60 dB
    against a 60 dB limit (trial 3: model.half() Qwen2, Gemma2, Phi3, CLIP, Wav2Vec2, HuBERT) where
    bf16 had 4 unit roundoffs of headroom. 2 epsilons of fp16 is SQNR 54 dB; a 5% change (~26 dB)
    still fails.
    """
    for name, eps in CAST_EPSILONS:
        if f"{name} default" in source:
            return max(rtol, 2 * eps)
    return rtol


def _golden_ratio(
    target: torch.Tensor, leaf: Leaf, golden: torch.Tensor | None
) -> tuple[float, float, float] | None:
    """(ratio, target RMSE vs golden, reference RMSE vs golden), when a golden was recorded."""
    if leaf.golden is None or leaf.reference_vs_golden_rmse is None:
        return None
    if golden is not None:
        error = tensor_metrics(target, golden, 0.0, 0.0).rmse
    else:
        error = sketch_metrics(sketch_of(target), leaf.golden.sketch, 0.0, 0.0).rmse
    own = leaf.reference_vs_golden_rmse
    ratio = error / own if own else (0.0 if error == 0 else float("inf"))
    return ratio, error, own


def check_input(key: str, target: torch.Tensor, reference: torch.Tensor | None) -> ValueCheck:
    """The fed input against the recorded one: exact equality expected (same data replayed)."""
    if reference is None:
        return ValueCheck(key=key, status="extra", reason="not a recorded input")
    shape = tuple(int(d) for d in target.shape)
    lower = lower_precision(dtype_name(target.dtype), dtype_name(reference.dtype))
    if shape == tuple(reference.shape) and target.dtype != reference.dtype and lower is not None:
        # The recorded input cast to the target's precision (model.to(bf16) and inputs with it).
        rtol, atol = default_tolerance(lower)
        metrics = tensor_metrics(target, reference, rtol, atol)
        cast = f"cast to {dtype_name(target.dtype)} (recorded {dtype_name(reference.dtype)})"
        ok = metrics.outside == 0 and not metrics.nonfinite_mismatch
        return ValueCheck(
            key=key,
            status="pass" if ok else "fail",
            basis="full",
            shape=shape,
            dtype=dtype_name(target.dtype),
            rtol=rtol,
            atol=atol,
            tolerance_from=f"{lower} default: {cast}",
            metrics=_metrics(metrics),
            cast=cast,
            reason=None if ok else "not the recorded input (beyond the cast's rounding)",
        )
    if shape != tuple(reference.shape) or target.dtype != reference.dtype:
        return ValueCheck(
            key=key,
            status="fail",
            shape=shape,
            dtype=dtype_name(target.dtype),
            reason="not the recorded input (shape or dtype differ)",
        )
    if target.device.type == "meta":
        return ValueCheck(
            key=key, status="skipped", shape=shape, dtype=dtype_name(target.dtype), reason="meta"
        )
    metrics = tensor_metrics(target, reference, 0.0, 0.0)
    status: ValueStatus = "pass" if metrics.outside == 0 and not metrics.nonfinite_mismatch else "fail"
    return ValueCheck(
        key=key,
        status=status,
        basis="full",
        shape=shape,
        dtype=dtype_name(target.dtype),
        metrics=_metrics(metrics),
        reason=None if status == "pass" else "not the recorded input",
    )
