"""From checks to a verdict (torch-free): module statuses, the first divergence, speed, placement.

First divergence: walking module calls in the target's completion order (children before their
parent), the first call that fails while every recorded value it took as input passed. Its
successors fail too, because they consume its output; they are symptoms, this is the birth. When
no failing call has all-passing inputs (the error was born in code outside any module, between
two modules), the first failing call is named, and the summary says its inputs differed.

Verdict, worst first: fail (numerics) · fallback (ops off the expected device inside modules) ·
slow (the fastest target replay beyond the limit on the fastest reference replay plus its spread, or
peak memory beyond its limit) · pass-with-limitations
(passed, but only within the reference's own noise, through the golden gate, on sketches, or the
reference is ill-conditioned) · pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from msgspec.structs import replace

from envsnap.inprocess.bundle.model import Call, Placement
from envsnap.inprocess.fp32_math import REDUCED_MATH
from envsnap.inprocess.verify.report import (
    CAST_MARK,
    GOLDEN_CHANGED,
    GOLDEN_HERE,
    GOLDEN_LESS_PRECISE,
    GOLDEN_NOT_ALIKE,
    PADDED,
    REPRESENTATION,
    STATE_UNDER_CAST,
    Divergence,
    ModuleCheck,
    SpeedMemory,
    ValueCheck,
    Verdict,
)

STATUS_RANK = {"pass": 0, "skipped": 1, "golden-pass": 2, "noisy": 3, "extra": 4, "missing": 5, "fail": 6}


def worst(statuses: Sequence[str]) -> str:
    return max(statuses, key=lambda s: STATUS_RANK[s]) if statuses else "pass"


def first_divergence(modules: Sequence[ModuleCheck], values: Mapping[str, ValueCheck]) -> Divergence | None:
    failing = [m for m in modules if m.status == "fail"]
    if not failing:
        return None
    for module in failing:
        inputs = [values[key] for key in module.inputs_from if key in values]
        if all(check.status != "fail" for check in inputs):
            found = _divergence(module, inputs, born=True)
            break
    else:
        module = failing[0]
        found = _divergence(module, [values[k] for k in module.inputs_from if k in values], born=False)
    earlier = _first_difference(modules, module)
    if earlier is not None:
        found = replace(found, summary=f"{found.summary} {earlier}")
    return found


def _first_difference(modules: Sequence[ModuleCheck], failing: ModuleCheck) -> str | None:
    """A hint when a value *before* the failing call already differed, within tolerance: a change
    can be born below tolerance and only cross it downstream."""
    for module in modules:
        if module.key == failing.key:
            return None
        for check in module.outputs:
            m = check.metrics
            noise = check.noise_max_abs or 0.0
            if check.status == "pass" and m is not None and m.max_abs > noise and not check.cast:
                return (
                    f"(Values differ already, within tolerance, from `{check.key}` on (max-abs "
                    f"{m.max_abs:.3g}): if `{failing.module}` is not the cause, look there.)"
                )
    return None


CODE = ".<code>"
"""Suffix of the pseudo-module standing for a module's own code (capture.Capture._code_value)."""
STATE = ".<state>"
"""Suffix of the pseudo-module standing for a module's state after the block (capture.Capture.state)."""


def _amount(value: float) -> str:
    """An atol to suggest: twice the largest difference seen, one significant digit (the rtol
    stays the one in force: raising atol alone is the smallest change that accepts it)."""
    return f"{2 * value:.0e}" if value > 0 else "0"


def next_step(module: str, check: ValueCheck | None) -> str:
    """What to do about a failing value, in one sentence."""
    if check is None or check.metrics is None:
        return "Next: compare the module's code and configuration between the two environments."
    m = check.metrics
    pattern = module.removesuffix(CODE) if module.endswith(CODE) else module
    accept = f"tolerances={{'{pattern}': ({check.rtol:.2g}, {_amount(m.max_abs)})}}"
    if check.cast:
        return (
            f"Next: the target's {check.cast} is the likely cause; run that part in the recorded "
            f"dtype to compare like for like, or accept the difference with {accept}."
        )
    if check.reason and GOLDEN_HERE in check.reason and GOLDEN_CHANGED in check.reason:
        return (
            f"Next: a float64 run of this model sides with the target: the reference differs from it by "
            f"more than rounding, so `{pattern}` computes something else; compare its code, kernels "
            f"and settings, or accept it with {accept} (if the target computes more precisely than "
            "float32, record with golden='cpu-fp64' to tell)."
        )
    if check.reason and GOLDEN_HERE in check.reason and GOLDEN_LESS_PRECISE in check.reason:
        return (
            f"Next: `{pattern}` on the target is further from a float64 run of this model than float32 "
            "rounding: it computes with less precision (TF32, reduced-precision reductions, another "
            f"kernel) or computes something else; compare its settings and code, or accept it with {accept}."
        )
    if check.reason and GOLDEN_HERE in check.reason and GOLDEN_NOT_ALIKE in check.reason:
        return (
            "Next: the float64 run of this model after the block is not what ran in it (a setting, "
            f"a module's state or its weights changed inside the block); compare `{pattern}`'s code and "
            f"settings between the two sides, or accept the difference with {accept}."
        )
    if check.golden_ratio is not None:
        return (
            f"Next: the target is {check.golden_ratio:.3g}× further from the float64 golden than the "
            f"reference: a real change in `{pattern}`; compare its code, kernels and settings."
        )
    return (
        "Next: if this difference is expected (another kernel or summation order), record with "
        f"golden='cpu-fp64' to judge it against a float64 run, or accept it with {accept} "
        "(it then covers the values it reaches downstream); otherwise compare that module's code, "
        "kernels and settings."
    )


def _divergence(module: ModuleCheck, inputs: list[ValueCheck], *, born: bool) -> Divergence:
    bad = [check for check in module.outputs if check.status == "fail"]
    detail = bad[0].reason if bad else "outputs differ"
    metrics = bad[0].metrics if bad else None
    numbers = (
        f" (max-abs {metrics.max_abs:.3g}, max-rel {metrics.max_rel:.3g}, SQNR {_db(metrics.sqnr_db)})"
        if metrics is not None
        else ""
    )
    code = module.module.endswith(CODE)
    state = module.module.endswith(STATE)
    name = module.module.removesuffix(CODE).removesuffix(STATE)
    if state:
        tensors = ", ".join(check.key.rsplit("/", 1)[-1] for check in bad) or "its tensors"
        what = (
            f"`{name}`'s state after the block ({tensors}: written in place by the block, as an "
            "optimizer step or BatchNorm's running statistics are)"
        )
        where = (
            "while every module output before it matched the reference"
            if born
            else "and module outputs already differed"
        )
    elif code:
        what = (
            f"`{name}`'s own code (functional ops between its submodules: attention, masks, residual "
            f"sums; value {module.call})"
        )
        where = (
            "while every recorded value it could have used matched the reference"
            if born
            else "and values it used already differed"
        )
    else:
        what = f"`{name}` ({module.type}, call {module.call})"
        unseen = sum(1 for check in inputs if check.status == "skipped")
        where = (
            f"while its compared inputs matched the reference ({unseen} of its inputs were not compared: "
            f"{inputs[[c.status for c in inputs].index('skipped')].reason})"
            if born and unseen and not module.untraced
            else "while its inputs matched the reference"
            if born and not module.untraced
            else f"while its {len(inputs)} traced inputs matched the reference ({module.untraced} tensor "
            "inputs were made outside any module and not traced: they could differ unseen)"
            if born
            else "and its inputs already differed (the error was born between modules, in code "
            "outside any module)"
        )
    step = (
        "Next: compare what updates it in the block: the optimizer and its settings (learning rate, "
        "weight decay, momentum), BatchNorm's momentum, any other in-place write."
        if state
        else next_step(module.module, bad[0] if bad else None)
    )
    summary = f"{what} is the first to diverge, {where}: {detail}{numbers}. {step}"
    return Divergence(
        key=module.key, module=name, summary=summary, outputs=module.outputs, inputs=tuple(inputs)
    )


def _db(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "∞ dB" if value == float("inf") else f"{value:.1f} dB"


def missing_calls(recorded: Sequence[Call], seen: set[str]) -> list[ModuleCheck]:
    """Recorded module calls the target never made."""
    return [
        ModuleCheck(
            key=call.key,
            module=call.module,
            call=call.call,
            type=call.type,
            status="missing",
            reference_device=call.device,
            outputs=tuple(
                ValueCheck(key=leaf.key, status="missing", reason="not produced on the target")
                for leaf in call.outputs
            ),
        )
        for call in recorded
        if call.key not in seen
    ]


def unobservable(
    missing: Sequence[ModuleCheck], ran: Sequence[ModuleCheck], *, scripted: bool, root: str | None = None
) -> tuple[list[ModuleCheck], list[str]]:
    """Split the recorded calls the target never made into the ones that count as "never ran" and
    limitations for the ones the target could not have shown:

    - values a module's own code made on the reference (``<code>``) where that module did run on
      the target: its code took another path (HF eager attention builds a causal mask that sdpa
      never materializes), so there is nothing to pair them with; the module's outputs and the
      modules that take them are compared;
    - with a TorchScript target (``torch.jit.script``/``trace``), the calls inside the model: its
      submodules run in the TorchScript interpreter, where module hooks never fire. The model's
      own outputs are compared; a divergence can't be pinned on a layer.
    - the calls inside a module that ran on the target with *none* of its recorded submodules: it
      took a fused path (nn.TransformerEncoderLayer's fast path in eval under no_grad runs one
      kernel where the slow path calls self_attn, linear1, norm1, ...). Its outputs are compared;
      a target that skips one submodule among others that ran still "never ran".
    """
    modules_ran = {m.module for m in ran if m.status != "missing"}
    # Whether a module ran "with none of its recorded submodules" is asked of recorded calls only:
    # a call the recording lacks (no values, or all of them extra: torch.export's `_guards_fn`
    # returns None) is no recorded submodule, and a graph that inlined the rest still ran alone.
    recorded_ran = {
        m.module for m in ran if m.status != "missing" and any(c.status != "extra" for c in m.outputs)
    }
    notes: list[str] = []
    kept: list[ModuleCheck] = []
    code: list[ModuleCheck] = []
    inside: list[ModuleCheck] = []
    fused: dict[str, list[ModuleCheck]] = {}
    for m in missing:
        if scripted and modules_ran and m.module not in modules_ran:
            inside.append(m)
        elif m.module.endswith(CODE) and m.module.removesuffix(CODE) in modules_ran:
            code.append(m)
        elif (outer := _ran_alone(m.module, recorded_ran, root)) is not None:
            fused.setdefault(outer, []).append(m)
        else:
            kept.append(m)
    if fused:
        outer, calls = next(iter(fused.items()))
        count = sum(len(found) for found in fused.values())
        notes.append(
            f"{count} recorded module calls inside {len(fused)} module(s) that ran on the target without "
            f"any of their submodules (`{outer}`: {calls[0].key}, …; a fused or fast path, e.g. "
            "nn.TransformerEncoderLayer in eval under no_grad, or a wrapper the target does not have, e.g. "
            "a LoRA adapter merged into its Linear, or a torch.export graph that inlined its submodules): "
            "those modules' outputs were compared, "
            "not the calls inside them"
        )
    if code:
        notes.append(
            f"{len(code)} values made in a module's own code on the reference have no counterpart on "
            f"the target (another code path, e.g. an attention mask built by one attention "
            f"implementation and not the other; {code[0].key}): not compared, the modules that take "
            "them are"
        )
    if inside:
        notes.append(
            f"the target is TorchScript: its {len(inside)} recorded module calls inside the model "
            f"({inside[0].key}, …) run in the TorchScript interpreter, where module hooks never fire; "
            "only the model's own outputs were compared, so a difference can't be pinned on a layer "
            "(verify the eager model to find one)"
        )
    return kept, notes


def _ran_alone(module: str, modules_ran: set[str], root: str | None) -> str | None:
    """The nearest enclosing module that ran on the target, when no module inside it did (the
    model itself, ``root``, when nothing but it ran); None otherwise."""
    parts = module.split(".")
    for end in range(len(parts) - 1, 0, -1):
        outer = ".".join(parts[:end])
        if outer in modules_ran:
            prefix = outer + "."
            return None if any(ran.startswith(prefix) for ran in modules_ran) else outer
    if root is not None and root in modules_ran and all(m == root or m.endswith(CODE) for m in modules_ran):
        return root
    return None


def _slow(speed: SpeedMemory | None, limit: float | None, memory_limit: float | None) -> list[str]:
    reasons: list[str] = []
    if speed is None:
        return reasons
    ref, tgt = speed.reference, speed.target
    if limit is not None and ref is not None and tgt is not None and ref.median_s > 0:
        # The fastest replay on each side (the one least disturbed by other load), and the target's
        # fastest must beat the limit on the reference's fastest *plus its own spread*: a loaded
        # machine stretches some samples, never the minimum of many.
        ref_fast = ref.min_s if ref.min_s is not None else ref.median_s
        tgt_fast = tgt.min_s if tgt.min_s is not None else tgt.median_s
        ratio = tgt_fast / ref_fast if ref_fast > 0 else 0.0
        if ratio > limit and tgt_fast > limit * (ref_fast + ref.iqr_s):
            reasons.append(
                f"latency {ratio:.2f}× the reference (fastest of {tgt.repeats}: {tgt_fast * 1e3:.3g} ms "
                f"vs {ref_fast * 1e3:.3g} ms, reference spread ± {ref.iqr_s * 1e3:.2g} ms; limit {limit:g}×; "
                "set slow=None to judge numbers only)"
            )
    if memory_limit is not None and speed.memory_ratio is not None and speed.memory_ratio > memory_limit:
        reasons.append(f"peak memory {speed.memory_ratio:.2f}× the reference (limit {memory_limit:g}×)")
    return reasons


def _fallback(placement: Placement | None) -> list[str]:
    if placement is None:
        return []
    reasons = []
    modules = [m for m in placement.off_device_modules if not m.startswith("<")]
    if modules:
        names = ", ".join(f"`{m}`" for m in modules[:8])
        reasons.append(f"ops ran off {placement.expected_device} in {names} ({placement.ops_off_device} ops)")
    if placement.cpu_modules:
        names = ", ".join(f"`{m}`" for m in placement.cpu_modules[:8])
        reasons.append(f"modules with their tensors on cpu (expected {placement.expected_device}): {names}")
    return reasons


def limitations_of(checks: Sequence[ValueCheck], placement: Placement | None) -> list[str]:
    found = []
    noisy = [c.key for c in checks if c.status == "noisy"]
    if noisy:
        found.append(
            f"{len(noisy)} values passed only within the reference's own run-to-run noise ({noisy[0]}, …)"
        )
    golden = [c.key for c in checks if c.status == "golden-pass"]
    if golden:
        found.append(f"{len(golden)} values passed only through the fp64-golden gate ({golden[0]}, …)")
    sampled = [c for c in checks if c.basis == "sample" and c.status != "fail"]
    if sampled:
        found.append(
            f"{len(sampled)} values were beyond the record's keep budget and compared on sketches only"
        )
    casts = [c for c in checks if c.cast and c.status != "fail"]
    if casts:
        first = casts[0]
        found.append(
            f"{len(casts)} values were compared at {first.tolerance_from.split(' ')[0]} tolerance: "
            f"the target's {first.cast} starts at `{first.key.split('#')[0]}`; to compare like for like, "
            "run the target in the recorded dtype (or record under the same autocast)"
        )
    at_tf32 = f"tf32 default: {REDUCED_MATH}"
    tf32 = [c for c in checks if c.tolerance_from.startswith(at_tf32) and c.status == "pass"]
    if tf32:
        found.append(
            f"{len(tf32)} values passed only at TF32's tolerance (rtol {tf32[0].rtol:g}), from "
            f"`{tf32[0].key.split('#')[0]}` on: {tf32[0].tolerance_from.split(': ', 2)[-1]}; to hold them "
            "to float32's, run both sides with torch.backends.cuda.matmul.allow_tf32 = False and "
            "torch.backends.cudnn.allow_tf32 = False (float32_matmul_precision 'highest')"
        )
    whole = [c for c in checks if c.status == "pass" and CAST_MARK in (c.reason or "")]
    if whole:
        found.append(
            f"{len(whole)} of them passed on the error's RMS with a few elements past the elementwise "
            "bound, the rounding a chain of lower-precision ops accumulates "
            f"({whole[0].key}: {(whole[0].reason or '').rsplit(CAST_MARK + ': ', 1)[-1]})"
        )
    padded = [c for c in checks if c.status == "pass" and (c.reason or "").startswith(PADDED)]
    if padded:
        found.append(
            f"{len(padded)} values are longer on the target, the extra positions all zeros, and were "
            f"{PADDED} ({padded[0].key}: {(padded[0].reason or '').split(': ', 1)[-1]}; e.g. attention "
            "weights over a static KV cache's unused slots)"
        )
    inherited = [c for c in checks if c.tolerance_from.startswith("inherited") and c.status == "pass"]
    if inherited:
        found.append(
            f"{len(inherited)} values passed under a looser tolerance {inherited[0].tolerance_from} "
            f"({inherited[0].key}, …)"
        )
    forms = [c for c in checks if c.status == "skipped" and (c.reason or "").startswith(REPRESENTATION)]
    if forms:
        found.append(
            f"{len(forms)} values made in a module's own code have another representation on the target "
            f"({forms[0].key}: {(forms[0].reason or '').split(': ')[-1]}; e.g. a bool attention mask "
            "where the reference had an additive float one): not compared, the modules that take them are"
        )
    stepped = [c for c in checks if c.status == "skipped" and (c.reason or "").startswith(STATE_UNDER_CAST)]
    if stepped:
        found.append(
            f"{len(stepped)} parameters or buffers the block wrote (a training step) differ beyond the "
            f"cast's tolerance ({stepped[0].key}): a gradient summed in the lower dtype can't be held to "
            "the recorded one; not failed, the outputs on the way to it are compared. To check the "
            "step itself, run it in the recorded dtype"
        )
    skipped = [c.key for c in checks if c.status == "skipped" and c not in forms and c not in stepped]
    if skipped:
        found.append(
            f"{len(skipped)} values had no data to compare (empty or meta tensors, or skipped by compare=)"
        )
    if placement is not None and "<outside modules>" in placement.off_device_modules:
        found.append(f"ops outside any module ran off {placement.expected_device} (data preparation, loss …)")
    return found


def verdict(
    modules: Sequence[ModuleCheck],
    taps: Sequence[ModuleCheck],
    inputs: Sequence[ValueCheck],
    speed: SpeedMemory | None,
    placement: Placement | None,
    *,
    slow: float | None,
    memory_limit: float | None,
    extra_limitations: Sequence[str] = (),
    extra_reasons: Sequence[str] = (),
) -> tuple[Verdict, list[str], list[str]]:
    """(verdict, reasons, limitations). ``extra_reasons`` fail the verdict (a different model)."""
    checks = [c for m in (*modules, *taps) for c in m.outputs]
    reasons: list[str] = list(extra_reasons)
    if extra_reasons:  # every module would be "missing": one sentence says why instead
        modules = [m for m in modules if m.status != "missing"]
    failed_modules = [m for m in modules if m.status == "fail"]
    failed_taps = [t for t in taps if t.status == "fail"]
    missing = [m for m in modules if m.status == "missing"]
    if failed_modules:
        reasons.append(f"{len(failed_modules)} of {len(modules)} module calls differ beyond tolerance")
    if failed_taps:
        reasons.append(f"{len(failed_taps)} taps differ: {', '.join(t.module for t in failed_taps[:5])}")
    if missing:
        reasons.append(f"{len(missing)} recorded module calls never ran on the target ({missing[0].key}, …)")
    fallback = _fallback(placement)
    slowness = _slow(speed, slow, memory_limit)
    limitations = limitations_of(checks, placement) + list(extra_limitations)
    if any(c.status == "fail" for c in inputs):
        limitations.append("the inputs fed are not the recorded ones: numbers are compared anyway")
    if reasons:
        return "fail", reasons + fallback + slowness, limitations
    if fallback:
        return "fallback", fallback + slowness, limitations
    if slowness:
        return "slow", slowness, limitations
    if limitations:
        return "pass-with-limitations", [f"{len(checks)} values compared, none beyond tolerance"], limitations
    return "pass", [f"{len(checks)} values compared, all within tolerance"], limitations


SELECTIONS = ("aten.topk.", "aten.sort.", "aten.argsort.", "aten.argmax.", "aten.max.dim", "aten.kthvalue.")
"""Ops that choose among values: a near-tie between two of them can go either way under rounding."""
NEAR_TIE_SHARE = 0.1
"""At most this share of an index output's elements differing reads as near-ties, not a bug."""


def near_tie(outputs: Sequence[ValueCheck], ops: Sequence[str]) -> str | None:
    """The hint for an integer output of a selection (top-k, sort, argmax) that differs in a few
    elements while the call's values passed only at a looser tolerance (a cast, TF32, an
    override): a choice between near-equal scores flipped by rounding (an MoE router under
    autocast) is the likely cause. The verdict stands: the flipped choice sends those tokens
    elsewhere, which changes what follows by far more than any tolerance, and no rule can tell
    that from a routing bug (that would take replaying the target with the recorded choices)."""
    if not any(op.startswith(SELECTIONS) for op in ops):
        return None
    loose = any(c.cast or c.tolerance_from.startswith(("inherited", "override")) for c in outputs)
    flipped = [
        c
        for c in outputs
        if c.status == "fail"
        and c.dtype.startswith(("int", "uint"))
        and c.metrics is not None
        and 0 < c.metrics.outside <= NEAR_TIE_SHARE * c.metrics.compared
    ]
    if not loose or not flipped:
        return None
    first = flipped[0]
    assert first.metrics is not None
    return (
        f"Near-tie: `{first.key}` is the index output of a selection ({first.metrics.outside} of "
        f"{first.metrics.compared} elements differ) over values that passed only at a looser "
        f"tolerance ({first.tolerance_from or 'a cast'}): a choice between near-equal scores "
        "flipped by the rounding is the likely cause (an MoE router under autocast), rather than "
        "a code change. The flipped choices send those tokens elsewhere, so what follows can't be "
        "judged by any tolerance: verify in the recorded dtype (or record under the same "
        "autocast) to compare the rest."
    )
