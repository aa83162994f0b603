"""The float64 golden by default: a float64 run of the model, made on the verify side when a float32
value fails, to tell rounding from a change.

Record's ``golden="cpu-fp64"`` replays the reference in float64 while recording: 3-8× a forward on
the known-good machine's timed path, too much for a default (docs/usage/record-verify.md). Verify
has what a golden needs without touching the record: the recorded inputs and a model. Only when a
float32 value fails the elementwise test (so a passing run costs nothing), the recorded calls are
replayed on CPU copies of the target's model, once in float64 (the golden ``g``) and once in
float32 (``c``: what plain float32 rounding of this computation looks like). A failed value then
passes as ``golden-pass`` only when the target (``t``) and the reference (``r``) both look like
float32 rounding of the same function, in RMS and in the worst element:

- ``d(t, g) ≤ k·max(d(r, g), d(c, g))``: the target is no further from the truth than float32 is
  (dynamo's and torchtitan's gate, k = 2 for float32);
- ``d(r, g) ≤ REFERENCE_FACTOR·max(d(t, g), d(c, g))``: the reference is as close to this model's
  truth as float32 is. The golden is the *target's* model's: where the port changed the function
  (a weight, an activation, a mask), the reference is far from it and the value still fails, now
  saying that the difference is not rounding.

Not run (the value stays failed, and the report says why): for values of another dtype or cast
(their tolerance is the cast's), for a block that changed the model's weights (a training step), for
recorded calls whose arguments could not be stored, for a ``compare=``/``split=``/padding comparison,
and for a model whose copy would take more than a quarter of the memory available (cpu_copy.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from msgspec.structs import replace

from envsnap.inprocess.bundle.model import Leaf
from envsnap.inprocess.capture import CallInfo, Capture
from envsnap.inprocess.cpu_copy import cpu_copy, upcast, why_not
from envsnap.inprocess.metrics import sketch_metrics, sketch_of, tensor_metrics
from envsnap.inprocess.tolerance import golden_factor
from envsnap.inprocess.verify.compare import CODE_KEY
from envsnap.inprocess.verify.report import (
    GOLDEN_CHANGED,
    GOLDEN_HERE,
    GOLDEN_LESS_PRECISE,
    GOLDEN_NOT_ALIKE,
    ValueCheck,
)
from envsnap.snapshot.redact import redact_text

REFERENCE_FACTOR = 4.0
"""How much further from the golden than float32 rounding (the target's or the CPU float32 copy's)
the reference may be. float32 errors of one computation on two machines (another summation order,
another GEMM blocking) differ by a small factor; a change of the function moves the reference away by
the size of the change, which the elementwise test already found larger than rounding."""

RUN_FACTOR = 16.0
"""How much further from the golden than the CPU float32 copy the closer of target and reference may
be. float32 runs of one computation on two machines differ by a small factor (REFERENCE_FACTOR);
both sides this far off means the replay is not the computation either ran (or both ran it with
less than float32's precision, which is not float32 rounding either)."""

Kept = torch.Tensor | Sequence[float | None]
"""A value in full (a host copy), or its sketch when the reference was beyond the record's budget."""


def wanted(check: ValueCheck, leaf: Leaf) -> bool:
    """Whether a failed value is one this golden can judge: float32 both sides, same shape, failed on
    its values (not on NaN/Inf positions), with no golden recorded for it. Not a value made in a
    module's own code: those are paired with the recorded ones by shape (VerifySink.code_key), which
    a replay's numbering does not repeat."""
    return (
        CODE_KEY not in check.key
        and check.status == "fail"
        and check.metrics is not None
        and not check.metrics.nonfinite_mismatch
        and check.cast is None
        and check.dtype == "float32"
        and leaf.stats.dtype == "float32"
        and tuple(check.shape) == tuple(leaf.stats.shape)
        and leaf.golden is None
    )


def weights_print(model: torch.nn.Module) -> list[tuple[float, float]]:
    """(sum, norm) of each floating parameter: what a training step moves. Version counters miss a
    step written through ``p.data`` (hand-written SGD, EMA-style updates), and a float64 run of the
    stepped model is no golden (a change as large as the step would pass). One reduction per
    parameter on its own device: no copy of the weights."""
    # Plain tensors only: a lazy module's parameter has no values yet, a DTensor's sum is a
    # collective (a hang where one rank verifies), float8 has no sum kernel.
    plain = [
        param.detach()
        for param in model.parameters()
        if not isinstance(param, torch.nn.parameter.UninitializedParameter)
    ]
    with torch.no_grad():
        return [
            (float(p.sum()), float(p.norm()))
            for p in plain
            if type(p) is torch.Tensor and p.dtype in _SUMMED and p.device.type != "meta"
        ]


_SUMMED = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def keep(tensor: torch.Tensor, full: bool) -> Kept:
    return tensor.detach().to("cpu", copy=True) if full else sketch_of(tensor)


@dataclass
class _Collect:
    """A capture sink that keeps the values of the wanted keys (in full, or their sketches)."""

    keys: Mapping[str, bool]
    """Key → kept in full."""
    values: dict[str, Kept] = field(default_factory=dict)
    dtypes: dict[str, torch.dtype] = field(default_factory=dict)

    def value(self, key: str, tensor: torch.Tensor) -> None:
        full = self.keys.get(key)
        if full is not None:
            self.values[key] = keep(tensor, full)
            self.dtypes[key] = tensor.dtype

    def call_done(self, call: CallInfo) -> None:
        pass

    def top_start(self, index: int) -> None:
        pass

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        pass


UNSTABLE = (
    "two float32 runs of the model on the CPU disagree on them (randomness such as dropout in train "
    "mode, or state the model keeps between calls): no run of it after the block is the one the target ran"
)
NOT_FLOAT64 = (
    "the float64 copy of the model computes them in a lower precision (a cast inside the model): "
    "that run is no float64 golden for them"
)
"""Why a value the replay made is left out of the golden (``replay``'s third result), said in the
report's limitations."""

STABLE_SHARE = 0.125
"""Two float32 replays of a deterministic model on the CPU agree exactly; this share of the float32
rounding error (its distance from the float64 run) covers a CPU kernel that reduces in another order
from one run to the next. Dropout or state moves a value by about its own size."""


def _run(
    model: torch.nn.Module,
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]],
    keys: Mapping[str, bool],
    rename: dict[str, str] | None,
    label: str | None,
    dtype: torch.dtype,
) -> _Collect:
    sink = _Collect(keys)
    capture = Capture(sink, model, rename=rename, label=label)
    capture.install()
    try:
        for args, kwargs in calls:  # upcast copies: a model writing into its input leaves ``calls`` alone
            model(*upcast(args, dtype), **upcast(kwargs, dtype))
    finally:
        capture.remove()
    return sink


def replay(
    model: torch.nn.Module,
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]],
    keys: Mapping[str, bool],
    rename: dict[str, str] | None,
    label: str | None,
) -> tuple[dict[str, Kept], dict[str, Kept], dict[str, str]] | str:
    """(golden, float32, left out) values of ``keys``: the calls replayed on CPU copies of ``model``
    in float64 and float32, numbered as the target's run was, and why values were left out; or why
    nothing could be replayed.

    The copy is made after the block, so it holds whatever state the block left (a counter, a cache)
    and draws other random numbers: the float32 calls run twice, the random state moving on between,
    and a value that differs between the two is left out (``UNSTABLE``), as is one the float64 copy
    did not compute in float64 (``NOT_FLOAT64``)."""
    problem = why_not(model, torch.float64)
    if problem is not None:
        return problem
    try:
        copied = cpu_copy(model, torch.float32)
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            first = _run(copied, calls, keys, rename, label, torch.float32)
            again = _run(copied, calls, keys, rename, label, torch.float32)
            gold = _run(copied.to(torch.float64), calls, keys, rename, label, torch.float64)
    except Exception as err:  # the user's model (a copy of it, on the CPU): said, never raised
        # redacted before it is cut: a cut secret no longer looks like one to the report's scrubber
        message = redact_text(" ".join(str(err).split()))[:160]
        return f"copying or replaying the model on the CPU raised {type(err).__name__}: {message}"
    left_out: dict[str, str] = {}
    for key in list(gold.values):
        if gold.dtypes[key] != torch.float64:
            left_out[key] = NOT_FLOAT64
        elif key in first.values and not _stable(first.values[key], again.values.get(key), gold.values[key]):
            left_out[key] = UNSTABLE
    kept = {key: value for key, value in gold.values.items() if key not in left_out}
    return kept, first.values, left_out


def _stable(first: Kept, again: Kept | None, gold: Kept) -> bool:
    if again is None:
        return False
    shapes = {tuple(t.shape) for t in (first, again, gold) if isinstance(t, torch.Tensor)}
    if len(shapes) > 1:
        return False
    rmse, max_abs = _distance(first, again)
    rounding_rmse, rounding_max = _distance(first, gold)
    return rmse <= STABLE_SHARE * rounding_rmse and max_abs <= STABLE_SHARE * rounding_max


def _distance(first: Kept, second: Kept) -> tuple[float, float]:
    """(RMSE, max-abs) between two kept values (both full, else on the sketch)."""
    if isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor):
        metrics = tensor_metrics(first, second, 0.0, 0.0)
    else:
        one = sketch_of(first) if isinstance(first, torch.Tensor) else first
        two = sketch_of(second) if isinstance(second, torch.Tensor) else second
        metrics = sketch_metrics(one, two, 0.0, 0.0)
    return metrics.rmse, metrics.max_abs


def rejudge(check: ValueCheck, target: Kept, reference: Kept, golden: Kept, float32: Kept) -> ValueCheck:
    """The failed ``check`` judged against the golden: ``golden-pass`` when target and reference
    both look like float32 rounding of the model (module docstring), else still failed, saying how
    far each is from the golden."""
    target_rmse, target_max = _distance(target, golden)
    reference_rmse, reference_max = _distance(reference, golden)
    rounding_rmse, rounding_max = _distance(float32, golden)
    k = golden_factor(check.dtype)
    slack = check.atol / 10
    target_ok = (
        target_rmse <= k * max(reference_rmse, rounding_rmse) + slack
        and target_max <= k * max(reference_max, rounding_max) + 10 * slack
    )
    reference_ok = (
        reference_rmse <= REFERENCE_FACTOR * max(target_rmse, rounding_rmse) + slack
        and reference_max <= REFERENCE_FACTOR * max(target_max, rounding_max) + 10 * slack
    )
    # Each side within k× or 4× of the *other* holds when both are equally far from the float64 run,
    # however far: a replay that is not what either side ran (state or settings the block changed
    # after the call) would pass anything. One of them must look like float32 rounding itself.
    rounding_ok = (
        min(target_rmse, reference_rmse) <= RUN_FACTOR * rounding_rmse + slack
        and min(target_max, reference_max) <= RUN_FACTOR * rounding_max + 10 * slack
    )
    ratio = target_rmse / reference_rmse if reference_rmse else (0.0 if not target_rmse else float("inf"))
    distances = (
        f"a float64 run of this model ({GOLDEN_HERE}) is at RMSE {target_rmse:.3g} from the target, "
        f"{reference_rmse:.3g} from the reference, {rounding_rmse:.3g} from float32 rounding"
    )
    if target_ok and reference_ok and rounding_ok:
        return replace(
            check,
            status="golden-pass",
            golden_ratio=ratio,
            reason=f"{check.reason}, but both sides are float32 rounding of the same math ({distances})",
        )
    why = GOLDEN_CHANGED if not reference_ok else GOLDEN_LESS_PRECISE if not target_ok else GOLDEN_NOT_ALIKE
    return replace(check, golden_ratio=ratio, reason=f"{check.reason}; {distances}: {why}")
