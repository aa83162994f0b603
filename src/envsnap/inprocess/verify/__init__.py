"""``envsnap.verify``: replay a recorded bundle on this machine and say where the numbers part ways.

    with envsnap.verify("baseline.envsnap", model=model) as v:   # the bundle is checked here
        out = model(v.inputs)                                    # the recorded inputs
    print(v.report)           # verdict, first divergence, speed/memory, placement, env diff

The bundle is validated completely (bundle_check.py) when ``verify(...)`` is called, before torch
or safetensors see a byte of it. Inside the block, every module output is checked as it is
produced (verify_sink.py); on exit the recorded calls are replayed for timing and memory, this
machine is snapshotted and diffed against the bundle's snapshot, and the report is built
(verify_judge.py) and scrubbed of secrets. Also a decorator, like record.
"""

from __future__ import annotations

import datetime
import functools
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from envsnap.inprocess.bundle.check import check_bundle
from envsnap.inprocess.tolerance import Tolerance, check_overrides
from envsnap.inprocess.verify.report import VerifyReport

Compare = Callable[[str, Any, Any], Any]
"""verify(compare=...): (key, target tensor, reference tensor) -> (target, reference) or None."""

F = TypeVar("F", bound=Callable[..., Any])


class Verifier:
    """Use ``envsnap.verify(...)`` to make one. See the module docstring."""

    def __init__(
        self,
        path: str | Path,
        model: Any = None,
        *,
        tolerances: Mapping[str, Tolerance] | None = None,
        device: str | None = None,
        slow: float | None = 1.5,
        memory_limit: float | None = 1.5,
        environment: Any = "full",
        measure: bool = True,
        repeats: int | None = None,
        rename: Mapping[str, str] | None = None,
        compare: Compare | None = None,
        split: int = 1,
    ) -> None:
        if compare is not None and not callable(compare):
            raise ValueError(
                "compare must be a function (key, target, reference) -> (target, reference) or None"
            )
        parts: Any = split  # user input: typed int, checked anyway (True and 1.5 are refused)
        if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
            raise ValueError("split must be a whole number ≥ 1 (the target's calls per recorded call)")
        given: Mapping[Any, Any] = rename or {}  # user input: typed str → str, checked anyway
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in given.items()):
            raise ValueError("rename must map module paths (str) to recorded module paths (str)")
        self.bundle = check_bundle(path)  # BadInput for anything hostile, before anything loads
        self.path = str(path)
        self.model = model
        self.overrides = check_overrides(tolerances)
        self.device = device
        self.slow = slow
        self.memory_limit = memory_limit
        self.environment = environment
        self.measure = measure
        self.repeats = repeats
        self.rename = dict(rename or {})
        self.compare = compare
        self.split = split
        self._match: Any = None
        self._before: Any = None
        """The target's tensors when the block was entered (capture.Before)."""
        self._snapshot: Any = None
        self._numerics: dict[str, str] = {}
        self._loaded: Any = None
        self._active: Any = None
        self._report: VerifyReport | None = None
        self._versions: list[int] = []
        """The target's parameters' versions when the block was entered (a step bumps them)."""
        self._golden_notes: list[str] = []
        self._weights: list[tuple[float, float]] = []
        """(sum, norm) of each of the target's parameters when the block was entered: a step through
        ``p.data`` writes the weights without moving their version counters."""

    # -- recorded data -------------------------------------------------------------------------

    def _load(self) -> Any:
        if self._loaded is None:
            from envsnap.inprocess.verify.load import load_tensors

            self._loaded = load_tensors(self.bundle, self.device, self.model)
        return self._loaded

    @property
    def calls(self) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
        """(args, kwargs) of every recorded top-level call, tensors on the target device."""
        calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = self._load().calls
        return calls

    @property
    def inputs(self) -> Any:
        """The first recorded call's input: the tensor itself when it took one positional argument,
        else the tuple of positional arguments (``model(*v.inputs, **v.kwargs)``)."""
        if not self.calls:
            raise RuntimeError(f"{self.path}: the bundle holds no recorded model calls")
        args, _ = self.calls[0]
        return args[0] if len(args) == 1 else args

    @property
    def kwargs(self) -> dict[str, Any]:
        return self.calls[0][1] if self.calls else {}

    def replay(self) -> list[Any]:
        """Call the model on every recorded input, in order; the outputs."""
        if self.model is None:
            raise RuntimeError("replay() needs verify(..., model=...)")
        return [self.model(*args, **kwargs) for args, kwargs in self.calls]

    def tap(self, name: str, value: Any) -> None:
        """Check a named value against the one tapped under that name on the reference."""
        if self._active is None:
            raise RuntimeError("v.tap() is only valid inside the verify block")
        self._active[0].tap(name, value)

    @property
    def report(self) -> VerifyReport:
        if self._report is None:
            raise RuntimeError("the report exists once the verify block has exited")
        return self._report

    # -- context manager and decorator ---------------------------------------------------------

    def __enter__(self) -> Verifier:
        from envsnap.inprocess.capture import Capture, state_before
        from envsnap.inprocess.fp32_math import between, known
        from envsnap.inprocess.guard import Guard
        from envsnap.inprocess.machine import snapshot_soon
        from envsnap.inprocess.module_names import unwrap
        from envsnap.inprocess.numerics import read_numerics
        from envsnap.inprocess.op_log import make_mode
        from envsnap.inprocess.verify.golden import weights_print
        from envsnap.inprocess.verify.sink import VerifySink

        loaded = self._load()
        self._snapshot = snapshot_soon(self.environment)  # probes overlap the block
        manifest = self.bundle.manifest
        recorded = {leaf.key: leaf for call in manifest.calls for leaf in call.outputs}
        recorded.update({leaf.key: leaf for tap in manifest.taps for leaf in tap.leaves})
        sink = VerifySink(
            recorded, loaded.activations, loaded.golden, loaded.inputs, self.overrides, compare=self.compare
        )
        self._numerics = read_numerics()  # the settings the target's math runs under
        sink.math = between(
            known(manifest.numerics), _recorded_device(manifest), self._numerics, self._model_device()
        )
        sink.call_ops = {call.key: call.ops for call in manifest.calls}
        fed: Any = sink
        if self.split > 1:
            from envsnap.inprocess.verify.split import SplitSink

            fed = SplitSink(sink, self.split, manifest.calls)
        if self.model is not None:
            from envsnap.inprocess.module_match import match

            self._match = match(manifest.modules, manifest.model, self.model, self.rename)
            capture = Capture(fed, self._match.model, rename=self._match.rename, label=self._match.label)
            self._before = state_before(unwrap(self._match.model))
            self._versions = [p._version for p in unwrap(self._match.model).parameters()]
            self._weights = weights_print(unwrap(self._match.model))
        else:
            capture = Capture(fed, None)
        if fed is not sink:
            fed.capture = capture
        guard = Guard(self.device)
        guard.__enter__()
        capture.install()
        params = _parameters(self._match) if self._match is not None else None
        ops = make_mode(capture.current, params)  # op signatures per module call (op-level origin)
        ops.__enter__()
        self._active = (capture, sink, guard, ops)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        capture, sink, guard, ops = self._active
        self._active = None
        ops.__exit__(exc_type, exc, tb)
        if exc_type is None:
            finish = getattr(capture.sink, "finish", None)
            if finish is not None:  # split=: the last recorded call's parts
                finish()
            # What the block wrote in place (a training step's result), and what the recording
            # holds of it whether written here or not; straight to the sink (no parts to join).
            if self._before is not None:
                capture.sink = sink
                recorded = self.bundle.manifest.calls
                held = {leaf.key for c in recorded if c.type == "state" for leaf in c.outputs}
                capture.state(self._before, held)
        capture.remove()
        guard.__exit__(exc_type, exc, tb)
        if exc_type is not None:
            return
        from envsnap.inprocess.verify.golden_judge import judge_failed

        dropped = _dropped_inputs(sink)
        self._golden_notes = judge_failed(self, sink) + dropped
        self._report = self._build(sink, guard)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def verified(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        verified.verifier = self  # type: ignore[attr-defined]
        return verified  # type: ignore[return-value]

    # -- the report ----------------------------------------------------------------------------

    def _build(self, sink: Any, guard: Any) -> VerifyReport:
        import torch

        from envsnap._version import __version__
        from envsnap.inprocess.fp32_math import known
        from envsnap.inprocess.placement import summarize
        from envsnap.inprocess.verify import judge
        from envsnap.inprocess.verify.report import ModuleCheck, RunSide, SpeedMemory
        from envsnap.inprocess.verify.speed import compare_speed
        from envsnap.snapshot.scrub import scrub_report

        manifest = self.bundle.manifest
        values = {**sink.checks, **sink.input_checks}
        reference_devices = {call.key: call.device for call in manifest.calls}
        modules = [
            ModuleCheck(
                key=call.key,
                module=call.module,
                call=call.call,
                type=call.type,
                device=call.device,
                reference_device=reference_devices.get(call.key),
                inputs_from=call.inputs_from,
                untraced=call.untraced,
                status=judge.worst([values[k].status for k in call.outputs if k in values]),  # type: ignore[arg-type]
                outputs=tuple(values[k] for k in call.outputs if k in values),
            )
            for call in sink.calls
        ]
        missing, unseen = judge.unobservable(
            judge.missing_calls(manifest.calls, {m.key for m in modules}),
            modules,
            scripted=_scripted(self.model),
            root=manifest.model,
        )
        modules += missing
        taps = self._tap_checks(sink.checks)
        noise = [
            leaf.noise_max_abs for c in manifest.calls for leaf in c.outputs if leaf.noise_max_abs is not None
        ]
        placement = summarize(guard.report, self.model)
        if self._snapshot is not None:  # the probes finish before the timed replays (the GIL)
            self._snapshot()
        different = self._match.different if self._match is not None else None
        speed: SpeedMemory | None
        if different:
            speed = SpeedMemory(note="not timed: the target is a different model than the recorded one")
        else:
            speed = compare_speed(self, manifest.measurements, sink.fed)
        env_changes, env_note, fingerprints = self._environment()
        verdict, reasons, limitations = judge.verdict(
            modules,
            taps,
            tuple(sink.input_checks.values()),
            speed,
            placement,
            slow=self.slow,
            memory_limit=self.memory_limit,
            extra_limitations=self._reference_limits()
            + self._golden_notes
            + _padding_note(sink.finish_padding())
            + unseen,
            extra_reasons=[different] if different else [],
        )
        report = VerifyReport(
            report="envsnap-verify",
            schema=1,
            bundle=self.path,
            created_at=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            verdict=verdict,
            reasons=tuple(reasons),
            limitations=tuple(limitations),
            first_divergence=self._op_origin(judge.first_divergence(modules, values), sink),
            counts=_counts(values.values()),
            reference_noise_max_abs=max(noise) if noise else None,
            reference_noise_values=len(noise),
            reference=RunSide(
                torch_version=manifest.torch_version,
                envsnap_version=manifest.envsnap_version,
                device=manifest.measurements.device if manifest.measurements else None,
                fingerprint=fingerprints[0],
                numerics=known(manifest.numerics),
            ),
            target=RunSide(
                torch_version=str(torch.__version__),
                envsnap_version=__version__,
                device=self._model_device(),
                fingerprint=fingerprints[1],
                numerics=self._numerics,
            ),
            speed=speed,
            placement=placement,
            reference_placement=manifest.placement,
            environment=tuple(env_changes),
            environment_note=env_note,
            module_match=self._match.note if self._match is not None else None,
            inputs=tuple(sink.input_checks.values()),
            modules=tuple(modules),
            taps=tuple(taps),
        )
        return scrub_report(report)

    def _op_origin(self, found: Any, sink: Any) -> Any:
        """Add the op-level origin (op_log.py) to the first divergence: the first op of the call
        whose signature differs from the reference's (for a module's own code: its parent call)."""
        from msgspec.structs import replace

        from envsnap.inprocess.op_log import origin, read_directly

        if found is None:
            return None
        calls = {info.key: info for info in sink.calls}
        info = calls.get(found.key)
        own_code = info is not None and info.type == "code"
        if info is not None and own_code:
            info = calls.get(info.parent or "")
        if info is None:
            return found
        recorded = {call.key: call for call in self.bundle.manifest.calls}.get(info.key)
        said = origin(info.module, recorded.ops if recorded else (), info.ops, own_code=own_code)
        called = {call.module for call in sink.calls}
        direct = read_directly(info.params_read, called)
        from envsnap.inprocess.verify.judge import near_tie

        tie = near_tie(found.outputs, (*(recorded.ops if recorded else ()), *info.ops))
        said = " ".join(part for part in (said, direct, tie) if part)
        return replace(found, summary=f"{found.summary} {said}") if said else found

    def _model_device(self) -> str | None:
        """The device type the target model's parameters are on (or the one given)."""
        if self.model is None:
            return self.device
        from envsnap.inprocess.record.measure import model_device

        return model_device(self.model, self.device or "cpu")

    def _tap_checks(self, checks: Mapping[str, Any]) -> list[Any]:
        from envsnap.inprocess.verify import judge
        from envsnap.inprocess.verify.report import ModuleCheck, ValueCheck

        taps = []
        for tap in self.bundle.manifest.taps:
            outputs = tuple(
                checks.get(leaf.key)
                or ValueCheck(key=leaf.key, status="missing", reason="not tapped on the target")
                for leaf in tap.leaves
            )
            taps.append(
                ModuleCheck(
                    key=f"tap:{tap.name}#{tap.call}",
                    module=f"tap:{tap.name}",
                    call=tap.call,
                    type="tap",
                    status=judge.worst([c.status for c in outputs]),  # type: ignore[arg-type]
                    outputs=outputs,
                )
            )
        return taps

    def _reference_limits(self) -> list[str]:
        """Said of the reference itself: nondeterministic, or ill-conditioned against the golden."""
        found = []
        leaves = [leaf for call in self.bundle.manifest.calls for leaf in call.outputs]
        noisy = [leaf for leaf in leaves if leaf.noise_max_abs]
        if noisy:
            worst = max(noisy, key=lambda leaf: leaf.noise_max_abs or 0.0)
            found.append(
                f"the reference is nondeterministic: {len(noisy)} values differ between two of its own runs "
                f"(largest {worst.noise_max_abs:.3g} in {worst.key})"
            )
        ill = []
        for leaf in leaves:
            golden = leaf.golden
            if golden is None or leaf.reference_vs_golden_rmse is None or not golden.l2 or not golden.numel:
                continue
            if leaf.reference_vs_golden_rmse / (golden.l2 / math.sqrt(golden.numel)) > 0.1:
                ill.append(leaf.key)
        if ill:
            found.append(
                f"the reference is ill-conditioned: {len(ill)} values are >10% off the fp64 golden "
                f"({ill[0]}, …)"
            )
        return found

    def _environment(self) -> tuple[list[Any], str | None, tuple[str | None, str | None]]:
        from envsnap.inprocess.machine import environment_changes, read_snapshot, snapshot_for

        old = read_snapshot(self.bundle.environment_text, f"{self.path}/environment.yaml")
        new = self._snapshot() if self._snapshot is not None else snapshot_for(self.environment)
        prints = (old.fingerprint if old else None, new.fingerprint if new else None)
        if old is None:
            return [], "the bundle holds no environment snapshot", prints
        if new is None:
            return [], "this machine was not snapshotted (environment='none')", prints
        return environment_changes(old, new), None, prints


def _padding_note(padded: int) -> list[str]:
    if not padded:
        return []
    return [
        f"{padded} values differed at padded positions, which were left out: the recorded call's "
        "attention_mask marks them, and what a model computes there depends on the attention "
        "implementation (real positions are compared; pass compare= to choose otherwise)"
    ]


def _counts(checks: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for check in checks:
        counts[check.status] = counts.get(check.status, 0) + 1
    return dict(sorted(counts.items()))


def verify(
    path: str | Path,
    model: Any = None,
    *,
    tolerances: Mapping[str, Tolerance] | None = None,
    device: str | None = None,
    slow: float | None = 1.5,
    memory_limit: float | None = 1.5,
    environment: Any = "full",
    measure: bool = True,
    repeats: int | None = None,
    rename: Mapping[str, str] | None = None,
    compare: Compare | None = None,
    split: int = 1,
) -> Verifier:
    """Check this machine's run against a bundle recorded with ``envsnap.record``.

    Args:
        path: the bundle (directory or zip). Validated now: BadInput (exit 2 on the CLI) for
            anything hostile or broken, before anything is loaded.
        model: the model on this machine; its outermost calls are checked, and replayed for timing.
        tolerances: (rtol, atol) per glob on module paths or ``tap:name``
            (``{"*.attn": (1e-2, 1e-3)}``); defaults are torch.testing.assert_close's per dtype.
        device: the device the work should run on (inputs are moved there; the guard's expected
            device); default: the first accelerator torch can use, else cpu.
        slow: latency ratio (target/reference) beyond which the verdict is ``slow`` (None: never).
        memory_limit: peak-memory ratio beyond which the verdict is ``slow`` (None: never).
        environment: "full", "fast", "none" or a Snapshot: this machine's side of the env diff.
        measure: replay the recorded calls for timing and memory.
        repeats: timed replays (default: as many as the reference took).
        rename: target module path → recorded module path, when neither the paths nor the
            structure line up (``{"inner": ""}``: the recorded model is the target's ``inner``).
            Wrappers (torch.compile, DDP, DataParallel, ``.module``) and pure renames need none.
        compare: ``compare(key, target, reference)`` → ``(target, reference)`` to compare instead
            (a mask: ``(t[valid], r[valid])``), or None to skip the value; called for every value
            compared in full, with the recorded tensor on the target's device.
        split: the target runs each recorded call as ``split`` calls on consecutive slices of the
            batch (dim 0); their values are concatenated and compared as one call (verify/split.py).

    Returns:
        A Verifier: ``v.inputs``/``v.kwargs``/``v.calls`` inside the block, ``v.report`` after it.
    """
    return Verifier(
        path,
        model,
        tolerances=tolerances,
        device=device,
        slow=slow,
        memory_limit=memory_limit,
        environment=environment,
        measure=measure,
        repeats=repeats,
        rename=rename,
        compare=compare,
        split=split,
    )


def _recorded_device(manifest: Any) -> str | None:
    """The device type the reference ran on: its measurements', else its first module's."""
    if manifest.measurements is not None and manifest.measurements.device:
        return str(manifest.measurements.device)
    return next((str(call.device) for call in manifest.calls if call.device), None)


def _parameters(found: Any) -> dict[int, tuple[Any, str]]:
    """id -> (parameter, its name as the report names modules) for the target model's parameters."""
    from envsnap.inprocess.module_names import unwrap

    rename = found.rename or {}
    model = unwrap(found.model)
    names: dict[int, tuple[Any, str]] = {}
    for path, module in model.named_modules():
        owner = rename.get(path, path) or found.label or type(model).__name__  # the model: its label
        for name, param in module.named_parameters(recurse=False):
            names.setdefault(id(param), (param, f"{owner}.{name}"))
    return names


def _dropped_inputs(sink: Any) -> list[str]:
    """Recorded inputs of a top-level call the target made that its call did not take (a dropped
    ``token_type_ids`` or ``attention_mask``), added to ``sink.input_checks`` as missing; what to
    say. Not when that call took an input the recording lacks: it may have moved (keyword ↔
    positional), which the extra input says."""
    from envsnap.inprocess.verify.report import ValueCheck

    def top(key: str) -> str:
        return key.split("/", 1)[0]

    fed = {top(key) for key in sink.input_checks}
    moved = {top(key) for key, check in sink.input_checks.items() if check.status == "extra"}
    dropped = [
        key
        for key in sink.inputs
        if key not in sink.input_checks and top(key) in fed and top(key) not in moved
    ]
    for key in dropped:
        sink.input_checks[key] = ValueCheck(
            key=key, status="missing", reason="recorded, not passed on the target"
        )
    if not dropped:
        return []
    return [
        f"{len(dropped)} recorded inputs were not passed to the target's call ({', '.join(dropped[:3])}): "
        "the model then uses its default for them, and the values that depend on them differ"
    ]


def _scripted(model: Any) -> bool:
    """Whether the target (under any wrapper) is TorchScript, whose submodules no hook sees."""
    import torch

    from envsnap.inprocess.module_names import unwrap

    return isinstance(unwrap(model), torch.jit.ScriptModule)
