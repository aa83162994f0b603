"""What the verify-side float64 golden (golden.py) judges after the block, and whether it may run.

The failed float32 values the sink kept (``VerifySink.pending``) are replayed on CPU copies of the
target's model; this module picks which module calls are run alone, which values' upstream matched
the reference (their rounding is shared), which were made in a module's own code, and says why no
replay is a golden for a run (a training step, unstorable or dropped inputs, ``split=``). The
Verifier calls ``judge_failed`` on exit, before the report is built.
"""

from __future__ import annotations

from typing import Any


def judge_failed(verifier: Any, sink: Any) -> list[str]:
    """Judge the failed float32 values against a float64 run of the model (verify/golden.py);
    what to say when it could not run."""
    if not sink.pending:
        return []
    import torch

    from envsnap.inprocess.module_names import unwrap
    from envsnap.inprocess.verify import golden
    from envsnap.inprocess.verify.load import recorded_calls

    blocked = _blocked(verifier, sink)
    recorded = {leaf.key: leaf for call in verifier.bundle.manifest.calls for leaf in call.outputs}
    found = blocked or golden.replay(
        unwrap(verifier._match.model),
        recorded_calls(verifier.bundle),  # not verifier.calls: the block may have written into them
        {key: isinstance(kept, torch.Tensor) for key, kept in sink.pending.items()},
        verifier._match.rename or None,
        verifier._match.label,
        recorded,
        None if verifier._match.rename else _alone(verifier, sink),
    )
    if isinstance(found, str):
        return [f"{len(sink.pending)} failed float32 values were not judged against a float64 run: {found}"]
    gold, rounding, left_out, alone = found
    activations = verifier._load().activations
    matched = _inputs_matched(sink)
    own_code = _own_code_values(sink)
    judged = {}
    for key, target in sink.pending.items():
        reference = activations.get(key)
        if key not in gold or key not in rounding or key not in recorded:
            continue  # the replay did not make it (another code path): judged as it was
        full = [t for t in (target, reference, gold[key], rounding[key]) if isinstance(t, torch.Tensor)]
        if any(tuple(t.shape) != tuple(sink.checks[key].shape) for t in full):
            continue  # not the same value after all: judged as it was
        judged[key] = (target, reference if reference is not None else recorded[key].stats.sketch)
    runs = alone(
        [
            key
            for key, (target, reference) in judged.items()
            if key not in own_code
            and golden.passes_model_wide(sink.checks[key], target, reference, gold[key], rounding[key])
        ]
    )
    for key, (target, reference) in judged.items():
        sink.checks[key] = golden.rejudge(
            sink.checks[key],
            target,
            reference,
            gold[key],
            rounding[key],
            runs.get(key),
            key in matched,
            own_code.get(key),
        )
    why = [why for key, why in left_out.items() if key in sink.pending]
    return [
        f"{why.count(said)} failed float32 values were not judged against a float64 run: {said}"
        for said in dict.fromkeys(why)
    ]


def _alone(verifier: Any, sink: Any) -> dict[str, Any]:
    """The failed values that a module call output (one of them, or each of several): key →
    (module path, call number, the reference's values of its recorded inputs when all are kept
    in full, else None, where in the call's output the value is)."""
    activations = verifier._load().activations
    alone = {}
    for info in sink.calls:
        if info.type in ("code", "state"):
            continue
        if info.parent is None:
            continue  # the model's own call: run alone it is the whole replay again
        inputs = tuple(activations.get(key) for key in info.inputs_from)
        full = bool(inputs) and not info.untraced and all(value is not None for value in inputs)
        for key in info.outputs:
            if key in sink.pending and key.startswith(info.key):
                alone[key] = (info.module, info.call, inputs if full else None, key[len(info.key) :])
    return alone


def _inputs_matched(sink: Any) -> dict[str, tuple[str, int]]:
    """The failed values (a module call's outputs) whose call took only recorded values
    that passed at their own dtype's tolerance: key → (module path, call number). Their
    upstream rounding is shared with the reference (verify/golden.py)."""
    matched = {}
    for info in sink.calls:
        if info.type in ("code", "state") or info.untraced:
            continue
        inputs = [sink.checks.get(key) or sink.input_checks.get(key) for key in info.inputs_from]
        if inputs and all(_matched(check) for check in inputs):
            matched.update({key: (info.module, info.call) for key in info.outputs if key in sink.pending})
    return matched


def _own_code_values(sink: Any) -> dict[str, str]:
    """The failed values made in a module's own code from values that all matched the reference
    at their own dtype's tolerance: key → that module. Its code after its children (a code value,
    its output, each of several outputs; the model's own call too): no run alone bounds that
    code's rounding, and the model-wide distances carry the children's shared rounding, which
    after an ill-conditioned child hides a change there (verify/golden.py). Not a call that saw
    no values of its children: the model's own call then has no upstream, and a module's call is
    run alone (``_alone``)."""
    calls = {info.key: info for info in sink.calls}
    found = {}
    for info in sink.calls:
        if info.type == "state" or info.key not in calls:
            continue
        owner = calls.get(info.parent or "") if info.type == "code" else info
        if owner is None or owner.untraced or info.untraced:
            continue
        if info.type != "code" and not info.seen:
            continue
        used = list(dict.fromkeys([*info.inputs_from, *info.seen]))
        if used and all(_matched(sink.checks.get(key) or sink.input_checks.get(key)) for key in used):
            found.update({key: owner.module for key in info.outputs if key in sink.pending})
    return found


def _blocked(verifier: Any, sink: Any) -> str | None:
    """Why a float64 replay of the target's model is no golden for this run (None: it is)."""
    from envsnap.inprocess.module_names import unwrap
    from envsnap.inprocess.value_tree import opaque_types

    manifest = verifier.bundle.manifest
    if verifier._match is None or verifier._match.different:
        return "no model, or not the recorded one"
    if verifier.split > 1:
        return "split= compares joined parts"
    if any(check.status in ("fail", "missing") for check in sink.input_checks.values()):
        return "the target was not fed the recorded inputs"
    from envsnap.inprocess.verify.golden import weights_print

    model = unwrap(verifier._match.model)
    versions = [p._version for p in model.parameters()]
    stepped = versions != verifier._versions or weights_print(model) != verifier._weights
    if stepped or any(call.type == "state" for call in manifest.calls):
        return "the block changed the model's weights (a training step): the model now is not the one run"
    for top in manifest.top_calls:
        if any(opaque_types(node) for node in [*top.args, *(node for _, node in top.kwargs)]):
            return "a recorded call took arguments that could not be stored"
    return None


def _matched(check: Any) -> bool:
    """Whether a value passed at its own dtype's tolerance (not a cast's, an override's, the golden's)."""
    return (
        check is not None
        and check.status == "pass"
        and check.cast is None
        and not check.tolerance_from.startswith(("override", "inherited"))
    )
