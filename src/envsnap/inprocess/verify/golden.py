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
  saying that the difference is not rounding;
- ``min(d(t, g), d(r, g)) ≤ RUN_FACTOR·d(c, g)``: one side itself looks like float32 rounding of
  the replay (a replay that is not what either side ran, state or settings the block changed after
  the call, is far from both alike, and the two bounds above would pass anything).

Rounding upstream is shared. Where the failed value's module call took inputs that matched the
reference at their own dtype's tolerance, target and reference carry the same upstream rounding, so
the model-wide distances above (which include it) would hide a change smaller than that rounding (a
bias moved after an ill-conditioned norm). There the difference between target and reference must
also be explained by the module's *own* rounding: its float32 copy run on the golden's inputs,
against the golden (``own``): ``d(t, r) ≤ 2k·d(own, g)`` in RMS and in the worst element.
And where the reference values of the call's inputs are kept in full, the target's module is
run on *the reference's own inputs*, in float64 (``g_r``) and float32 (``c_r``): the reference's
output must be that function of its input up to float32 rounding, ``d(r, g_r) ≤
REFERENCE_FACTOR·d(c_r, g_r)``. This is the golden one module at a time: a change the upstream
rounding of an ill-conditioned op would bury (an activation swapped after it) is still seen.
A value made in a module's own code from values that all matched, its children's outputs included
(the model's own output, a module's outputs after its children, a code value), has no run alone
to bound that code's rounding, and the model-wide distances carry the children's shared rounding:
it is not passed (``own_code``). Each output of a module of several is run alone as one would be.

Not run (the value stays failed, and the report says why): for values of another dtype or cast
(their tolerance is the cast's), for a block that changed the model's weights (a training step, also
one through ``p.data``: weights_print), for values two float32 replays disagree on (randomness, state
kept between calls) or the float64 copy computes in a lower precision, for recorded calls whose
arguments could not be stored or inputs the target was not given, for a ``compare=``/``split=``/
padding comparison, and for a model whose copy would take more than a quarter of the memory
available (cpu_copy.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from msgspec.structs import replace
from torch.utils._pytree import tree_leaves, tree_map

from envsnap.inprocess.bundle.model import Leaf
from envsnap.inprocess.capture import CallInfo, Capture
from envsnap.inprocess.cpu_copy import cpu_copy, upcast, why_not
from envsnap.inprocess.metrics import sketch_metrics, sketch_of, tensor_metrics
from envsnap.inprocess.tensor_stats import leaves
from envsnap.inprocess.tolerance import golden_factor
from envsnap.inprocess.verify.compare import aligned_code_key
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

STASH_BYTES = 256 * 2**20
"""At most this much of float64 inputs is kept for the module calls run alone (a change early in a
large model fails most of what follows; the rest are judged model-wide, as before)."""

Kept = torch.Tensor | Sequence[float | None]
"""A value in full (a host copy), or its sketch when the reference was beyond the record's budget."""


def wanted(check: ValueCheck, leaf: Leaf) -> bool:
    """Whether a failed value is one this golden can judge: float32 both sides, same shape, failed on
    its values (not on NaN/Inf positions), with no golden recorded for it. Values made in a module's
    own code are among them: the replay pairs them with the recorded keys as the verify sink does
    (compare.aligned_code_key), and a value the replay pairs otherwise fails the shape check."""
    return (
        check.status == "fail"
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
    recorded: Mapping[str, Leaf] = field(default_factory=dict)
    values: dict[str, Kept] = field(default_factory=dict)
    dtypes: dict[str, torch.dtype] = field(default_factory=dict)
    code_shift: dict[str, int] = field(default_factory=dict)

    def code_key(self, name: str, call: int, tensor: torch.Tensor) -> str:
        """Code values keyed as the verify sink keyed the target's (same code, same pairing)."""
        return aligned_code_key(
            self.recorded, self.code_shift, name, call, tuple(int(d) for d in tensor.shape)
        )

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


@dataclass
class Local:
    """One module call run alone (module docstring)."""

    own: Kept
    """Its float32 copy on the float64 run's inputs (compared with the float64 run's value)."""
    on_reference: tuple[Kept, Kept] | None = None
    """The target's module on the reference's recorded input: (float64, float32)."""


Alone = Callable[[Collection[str]], dict[str, Local]]
"""The module calls of the given keys run alone (those asked for locally whose inputs were kept)."""

Golden = tuple[dict[str, Kept], dict[str, Kept], dict[str, str], Alone]
"""Per key: the float64 run's value, the CPU float32 run's value, why it was left out; and the runs
alone, made only for the keys the model-wide distances would pass (each copies its module: not paid
for the rest)."""

Place = tuple[str, int, "tuple[torch.Tensor, ...] | None", str]
"""A module call to run alone: module path, call number, the reference's values of its recorded
inputs (in the order the capture traced its positional tensors) or None, and where in its output
the value is (``""``: the output is the tensor; ``"/1"``: the second of a tuple)."""


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


def replay(
    model: torch.nn.Module,
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]],
    keys: Mapping[str, bool],
    rename: dict[str, str] | None,
    label: str | None,
    recorded: Mapping[str, Leaf] | None = None,
    local: Mapping[str, Place] | None = None,
) -> Golden | str:
    """(golden, float32, left out, runs alone) for ``keys``: the calls replayed on CPU copies of
    ``model`` in float64 and float32, numbered as the target's run was, why values were left out,
    and the module calls ``local`` names run alone (module docstring); or why nothing could be
    replayed.

    The copy is made after the block, so it holds whatever state the block left (a counter, a cache)
    and draws other random numbers: the float32 calls run twice, the random state moving on between,
    and a value that differs between the two is left out (``UNSTABLE``), as is one the float64 copy
    did not compute in float64 (``NOT_FLOAT64``)."""
    problem = why_not(model, torch.float64)
    if problem is not None:
        return problem
    stash: dict[str, tuple[Place, Any, Any]] = {}
    try:
        copied = cpu_copy(model, torch.float32)
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            first = _replay_calls(copied, calls, keys, rename, label, recorded, torch.float32)
            again = _replay_calls(copied, calls, keys, rename, label, recorded, torch.float32)
            copied = copied.to(torch.float64)
            handles = _stash_inputs(copied, local or {}, stash)
            try:
                gold = _replay_calls(copied, calls, keys, rename, label, recorded, torch.float64)
            finally:
                for handle in handles:
                    handle.remove()
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

    def alone(wanted: Collection[str]) -> dict[str, Local]:
        try:
            return _own_rounding(copied, {k: stash[k] for k in wanted if k in stash}, keys)
        except Exception:  # the user's module, alone: then judged model-wide, as before
            return {}

    return kept, first.values, left_out, alone


def _replay_calls(
    model: torch.nn.Module,
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]],
    keys: Mapping[str, bool],
    rename: dict[str, str] | None,
    label: str | None,
    recorded: Mapping[str, Leaf] | None,
    dtype: torch.dtype,
) -> _Collect:
    sink = _Collect(keys, recorded or {})
    capture = Capture(sink, model, rename=rename, label=label)
    capture.install()
    try:
        for args, kwargs in calls:  # upcast copies: a model writing into its input leaves ``calls`` alone
            model(*upcast(args, dtype), **upcast(kwargs, dtype))
    finally:
        capture.remove()
    return sink


def _stable(first: Kept, again: Kept | None, gold: Kept) -> bool:
    if again is None:
        return False
    shapes = {tuple(t.shape) for t in (first, again, gold) if isinstance(t, torch.Tensor)}
    if len(shapes) > 1:
        return False
    return _within(_distance(first, again), _distance(first, gold), STABLE_SHARE, 0.0)


def _stash_inputs(
    model: torch.nn.Module, local: Mapping[str, Place], stash: dict[str, tuple[Place, Any, Any]]
) -> list[Any]:
    """Hooks that keep a copy of the inputs of the module calls ``local`` names (float64 run)."""
    wanted: dict[tuple[str, int], list[str]] = {}
    for key, place in local.items():
        wanted.setdefault(place[:2], []).append(key)
    paths = {path for path, _ in wanted}
    counts: dict[str, int] = {}
    used = [0]
    handles = []
    for path, module in model.named_modules():
        if path not in paths:
            continue

        def keep_inputs(module: Any, args: Any, kwargs: Any, output: Any, path: str = path) -> None:
            call = counts.get(path, 0)
            counts[path] = call + 1
            found = wanted.get((path, call))
            if found is None:
                return
            size = sum(
                v.nelement() * v.element_size()
                for v in tree_leaves((args, kwargs))
                if isinstance(v, torch.Tensor)
            )
            if used[0] + size <= STASH_BYTES:  # past it: that call is judged model-wide only
                used[0] += size
                inputs = (_cloned(args), _cloned(kwargs))  # one copy for each of its values
                stash.update({key: (local[key], *inputs) for key in found})

        handles.append(module.register_forward_hook(keep_inputs, with_kwargs=True))
    return handles


def _cloned(value: Any) -> Any:
    return tree_map(lambda v: v.detach().clone() if isinstance(v, torch.Tensor) else v, value)


def _own_rounding(
    model: torch.nn.Module, stash: Mapping[str, tuple[Place, Any, Any]], keys: Mapping[str, bool]
) -> dict[str, Local]:
    """Each stashed call run again alone: on a float32 copy of its module with its float64 inputs,
    and (given the reference's input) the module in float64 and float32 on that input."""
    found: dict[str, Local] = {}
    for key, ((path, _, reference_input, part), args, kwargs) in stash.items():
        full = keys.get(key, False)
        module = copy.deepcopy(model.get_submodule(path))
        own = _run_module(module.to(torch.float32), args, kwargs, torch.float32, part)
        if own is None:
            continue
        local = Local(keep(own, full))
        swapped = _swap_input(args, kwargs, reference_input)
        if swapped is not None:
            gold = _run_module(module.to(torch.float64), *swapped, torch.float64, part)
            rounding = _run_module(module.to(torch.float32), *swapped, torch.float32, part)
            if gold is not None and rounding is not None:
                local.on_reference = (keep(gold, full), keep(rounding, full))
        found[key] = local
    return found


def _run_module(
    module: torch.nn.Module, args: Any, kwargs: Any, dtype: torch.dtype, part: str
) -> torch.Tensor | None:
    """The module's output at ``part`` (leaves' path in it), in float64 (None: no tensor there)."""
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        out = module(*upcast(args, dtype), **upcast(kwargs, dtype))
    found = dict(leaves(out)).get(part)
    return found.to(torch.float64) if isinstance(found, torch.Tensor) else None


def _swap_input(args: Any, kwargs: Any, reference: tuple[torch.Tensor, ...] | None) -> tuple[Any, Any] | None:
    """The call's arguments with its tensors replaced by the reference's values (None: no reference
    values, or the call's tensors are not one to one those the capture traced: a tensor passed
    twice or by keyword, or one the swap would not reach)."""
    if reference is None:
        return None
    tensors = [tensor for _, tensor in leaves(args)]
    if len(tensors) != len(reference) or any(
        isinstance(v, torch.Tensor) and v.is_floating_point() for v in tree_leaves(kwargs)
    ):
        return None
    pairs = list(zip(tensors, reference, strict=True))  # lengths checked above
    if any(t.shape != r.shape or t.is_floating_point() != r.is_floating_point() for t, r in pairs):
        return None
    swap = {id(t): r.to(torch.float64) if r.is_floating_point() else r for t, r in pairs}
    done = []

    def swapped(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and id(value) in swap:
            done.append(id(value))
            return swap[id(value)]
        return value

    result = tree_map(swapped, (args, kwargs))
    return result if sorted(done) == sorted(swap) else None


def _local_failure(
    target: Kept, reference: Kept, golden: Kept, local: Local, inputs_matched: bool, k: float, slack: float
) -> str | None:
    """Why the module call run alone shows a change the model-wide distances hid (None: it doesn't)."""
    if inputs_matched:
        own = own_rmse, own_max = _distance(local.own, golden)
        apart = apart_rmse, apart_max = _distance(target, reference)
        if not _within(apart, own, 2 * k, slack):
            return (
                f"its inputs matched the reference, and the target is at RMSE {apart_rmse:.3g} (max "
                f"{apart_max:.3g}) from it, past 2×{k:g}× this module's own float32 rounding (RMSE "
                f"{own_rmse:.3g}, max {own_max:.3g})"
            )
    if local.on_reference is not None:
        gold, rounding = local.on_reference
        off = off_rmse, off_max = _distance(reference, gold)
        own = own_rmse, own_max = _distance(rounding, gold)
        if not _within(off, own, REFERENCE_FACTOR, slack):
            return (
                f"the target's module run in float64 on the reference's own input is at RMSE "
                f"{off_rmse:.3g} (max {off_max:.3g}) from the reference, past {REFERENCE_FACTOR:g}× its "
                f"float32 rounding there (RMSE {own_rmse:.3g}, max {own_max:.3g})"
            )
    return None


Distance = tuple[float, float]
"""(RMSE, max-abs) between two values."""


def _within(distance: Distance, bound: Distance, factor: float, slack: float) -> bool:
    """Whether ``distance`` is within ``factor``× ``bound`` in RMS and in the worst element (plus
    ``slack`` on the RMS, ten times it on the worst element: atol-sized room near zero)."""
    return distance[0] <= factor * bound[0] + slack and distance[1] <= factor * bound[1] + 10 * slack


def _distance(first: Kept, second: Kept) -> Distance:
    """(RMSE, max-abs) between two kept values (both full, else on the sketch)."""
    if isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor):
        metrics = tensor_metrics(first, second, 0.0, 0.0)
    else:
        one = sketch_of(first) if isinstance(first, torch.Tensor) else first
        two = sketch_of(second) if isinstance(second, torch.Tensor) else second
        metrics = sketch_metrics(one, two, 0.0, 0.0)
    return metrics.rmse, metrics.max_abs


def _wider(first: Distance, second: Distance) -> Distance:
    return max(first[0], second[0]), max(first[1], second[1])


def passes_model_wide(check: ValueCheck, target: Kept, reference: Kept, golden: Kept, float32: Kept) -> bool:
    """Whether the model-wide distances alone would pass ``check`` (who needs a run alone)."""
    return rejudge(check, target, reference, golden, float32).status == "golden-pass"


def rejudge(
    check: ValueCheck,
    target: Kept,
    reference: Kept,
    golden: Kept,
    float32: Kept,
    local: Local | None = None,
    inputs_matched: bool = False,
    own_code: str | None = None,
) -> ValueCheck:
    """The failed ``check`` judged against the golden: ``golden-pass`` when target and reference
    both look like float32 rounding of the model (module docstring), else still failed, saying how
    far each is from the golden. ``local``: the module call run alone; its own rounding bounds the
    difference when ``inputs_matched`` (the upstream rounding is shared and cannot explain it), and
    its run on the reference's input bounds the reference. ``own_code``: the module whose own code
    made the value from values that all matched (its children's included), which no run alone
    bounds: the model-wide distances carry the children's shared rounding, so it stays failed."""
    target_far = target_rmse, _ = _distance(target, golden)
    reference_far = reference_rmse, _ = _distance(reference, golden)
    rounding = rounding_rmse, _ = _distance(float32, golden)
    k = golden_factor(check.dtype)
    slack = check.atol / 10
    target_ok = _within(target_far, _wider(reference_far, rounding), k, slack)
    reference_ok = _within(reference_far, _wider(target_far, rounding), REFERENCE_FACTOR, slack)
    # Each side within k× or 4× of the *other* holds when both are equally far from the float64 run,
    # however far: a replay that is not what either side ran (state or settings the block changed
    # after the call) would pass anything. One of them must look like float32 rounding itself.
    closer = (min(target_far[0], reference_far[0]), min(target_far[1], reference_far[1]))
    rounding_ok = _within(closer, rounding, RUN_FACTOR, slack)
    ratio = target_rmse / reference_rmse if reference_rmse else (0.0 if not target_rmse else float("inf"))
    distances = (
        f"a float64 run of this model ({GOLDEN_HERE}) is at RMSE {target_rmse:.3g} from the target, "
        f"{reference_rmse:.3g} from the reference, {rounding_rmse:.3g} from float32 rounding"
    )
    if target_ok and reference_ok and rounding_ok and own_code is not None:
        return replace(
            check,
            golden_ratio=ratio,
            reason=(
                f"{check.reason}; {distances}; but it was made in {own_code}'s own code from values that "
                "all matched the reference, whose shared rounding these distances carry, and no run "
                f"alone bounds that code's: {GOLDEN_CHANGED}"
            ),
        )
    if target_ok and reference_ok and rounding_ok and local is not None:
        failed = _local_failure(target, reference, golden, local, inputs_matched, k, slack)
        if failed:
            return replace(
                check,
                golden_ratio=ratio,
                reason=f"{check.reason}; {distances}; but {failed}: {GOLDEN_CHANGED}",
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
