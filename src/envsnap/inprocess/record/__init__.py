"""``envsnap.record``: capture a known-good run into a bundle that another machine can verify against.

    with envsnap.record("baseline.envsnap", model=model) as rec:
        out = model(x)              # any code: preprocessing, forward, loss, backward ...
        rec.tap("tokens", tokens)   # named values outside modules

On exit (a block that raised writes nothing) the recorder measures and writes the bundle
(bundle_model.py): the environment snapshot, the model's top-level inputs, every module output's
stats (and tensors within ``keep``), taps, final outputs, then — by replaying the recorded calls —
the reference's run-to-run noise (the first timed replay's outputs against the block's; a hooked
replay value by value only when they differ), its timing (fastest, median and spread of
synchronized repetitions; the block's own forward, the hooks' time subtracted, counts as one of
them when the first replay agrees with it within 15%: block_clock.py), peak device memory,
throughput for ``batch_size``, and optionally a CPU float64 golden. The guard's placement comes
from the block itself, as on verify. Replays start from the state the recorded calls saw and leave
the model, its buffers and the RNG as the block left them. Generate inputs on the CPU with a fixed
seed: the bundle stores them, so the target replays exactly the same data.

Also a decorator: each call of the decorated function is recorded (the bundle holds the last one).
The block runs with module hooks (stats of each output, tensors within the budget) and the guard
(a Python call per op: negligible on a real model, where the replays it saves cost whole forwards).
torch is imported when a recorder is entered, never by ``import envsnap``.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from envsnap.snapshot.redact import redact_text

F = TypeVar("F", bound=Callable[..., Any])


class Recorder:
    """Use ``envsnap.record(...)`` to make one. See the module docstring."""

    def __init__(
        self,
        path: str | Path,
        model: Any = None,
        *,
        keep: str | int | None = "64MB",
        golden: str | None = None,
        environment: Any = "full",
        batch_size: int | None = None,
        repeats: int = 2,
        warmup: int = 0,
        measure: bool = True,
        device: str | None = None,
    ) -> None:
        from envsnap.inprocess.record.sizes import parse_size

        if golden not in (None, "cpu-fp64"):
            raise ValueError(f"golden must be None or 'cpu-fp64', not {golden!r}")
        if repeats < 1 or warmup < 0:
            raise ValueError("repeats must be 1 or more and warmup 0 or more")
        self.path = Path(path)
        self.model = model
        self.keep_bytes = parse_size(keep)
        self.golden = golden
        self.environment = environment
        self.batch_size = batch_size
        self.repeats = repeats
        self.warmup = warmup
        self.measure = measure
        self.device = device
        self._active: Any = None
        self._environment: Any = None
        self._numerics: dict[str, str] = {}
        self._before: Any = None
        self._taps: dict[str, list[tuple[int, list[str]]]] = {}
        self.manifest: Any = None
        """The written bundle's manifest (bundle_model.Manifest), once the block has exited."""

    def tap(self, name: str, value: Any) -> None:
        """Record a named value (a tensor, or a list/tuple/dict of them) outside any module."""
        if self._active is None:
            raise RuntimeError("rec.tap() is only valid inside the record block")
        capture = self._active[0]
        name = redact_text(name)  # the name becomes a tensor key in the bundle: never a secret
        keys = capture.tap(name, value)
        self._taps.setdefault(name, []).append((len(self._taps.get(name, [])), keys))

    def __enter__(self) -> Recorder:
        from envsnap.inprocess.capture import Capture, state_before
        from envsnap.inprocess.guard import Guard
        from envsnap.inprocess.op_log import make_mode
        from envsnap.inprocess.record.sink import RecordSink

        if self._active is not None:
            raise RuntimeError("this recorder is already recording")
        from envsnap.inprocess.machine import snapshot_soon
        from envsnap.inprocess.module_names import unwrap
        from envsnap.inprocess.numerics import read_numerics
        from envsnap.inprocess.replay_state import ModelState

        self._taps = {}
        self._numerics = read_numerics()  # the settings the block's math runs under
        self._environment = snapshot_soon(self.environment)  # the probes overlap the block
        state = ModelState(unwrap(self.model) if self.model is not None else None)
        sink = RecordSink(self.keep_bytes, state=state)
        capture = Capture(sink, self.model)
        if self.model is not None and self.measure:
            from envsnap.inprocess.block_clock import BlockClock
            from envsnap.inprocess.record.measure import model_device

            # The block's own forward is a timing sample (one replay fewer) when a replay agrees.
            device = model_device(unwrap(self.model), self.device or "cpu")
            capture.clock = BlockClock(device, busy=self._environment.running)
        # Before the guard and the op log: its copies are envsnap's, not the block's ops.
        self._before = state_before(unwrap(self.model)) if self.model is not None else None
        guard = Guard(self.device)  # placement, from the block (as verify does)
        guard.__enter__()
        capture.install()
        ops = make_mode(capture.current)  # op signatures per module call (op-level origin)
        ops.__enter__()
        self._active = (capture, sink, guard, ops)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        capture, sink, guard, ops = self._active
        self._active = None
        ops.__exit__(exc_type, exc, tb)
        if exc_type is None and self._before is not None:
            capture.state(self._before)  # what the block wrote in place: a training step's result
        capture.remove()
        guard.__exit__(exc_type, exc, tb)
        if exc_type is not None:
            return
        sink.starts = capture.starts
        if capture.clock is not None:
            sink.block_s = dict(capture.clock.samples)
        self.manifest = self._write(sink, guard)

    def __call__(self, func: F) -> F:
        """Use as a decorator: every call of ``func`` is recorded (``func.recorder`` is this object)."""

        @functools.wraps(func)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        recorded.recorder = self  # type: ignore[attr-defined]
        return recorded  # type: ignore[return-value]

    def _write(self, sink: Any, guard: Any) -> Any:
        import torch

        from envsnap._version import __version__
        from envsnap.inprocess.bundle import model as bm
        from envsnap.inprocess.bundle.write import write_bundle
        from envsnap.inprocess.module_match import signature
        from envsnap.inprocess.module_names import unwrap
        from envsnap.inprocess.record.manifest import build_calls, build_taps, tensor_bytes
        from envsnap.inprocess.record.measure import measure_reference

        # The probes ran beside the block; they must be done before the timed replays, which a
        # probe thread would slow down (it competes for the GIL).
        snapshot = self._environment()
        extra = measure_reference(self, sink)
        if self.model is not None:
            from envsnap.inprocess.module_names import unwrap as inner
            from envsnap.inprocess.placement import summarize

            extra.placement = summarize(guard.report, inner(self.model))
        members: dict[str, bytes] = {}
        if sink.inputs:
            members[bm.INPUTS] = tensor_bytes(sink.inputs)
        if sink.kept:
            members[bm.ACTIVATIONS] = tensor_bytes(sink.kept)
        if extra.golden is not None and extra.golden.kept:
            members[bm.GOLDEN] = tensor_bytes(extra.golden.kept)
        from envsnap.inprocess.machine import snapshot_text

        if snapshot is not None:
            members[bm.ENVIRONMENT] = snapshot_text(snapshot)
        model = self.model
        manifest = bm.Manifest(
            format=bm.BUNDLE_FORMAT,
            schema=bm.BUNDLE_SCHEMA,
            envsnap_version=__version__,
            created_at=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            torch_version=str(torch.__version__),
            model=type(unwrap(model)).__name__ if model is not None else None,
            parameters=sum(p.numel() for p in model.parameters()) if model is not None else None,
            keep_bytes=self.keep_bytes,
            kept_bytes=sink.spent,
            golden=self.golden if extra.golden is not None else None,
            calls=build_calls(sink, extra),
            taps=build_taps(self._taps, sink, extra),
            top_calls=tuple(sink.tops),
            measurements=extra.measurements,
            placement=extra.placement,
            notes=tuple(sink.notes + extra.notes),
            modules=signature(model) if model is not None else (),
            numerics=self._numerics,
        )
        write_bundle(self.path, manifest, members)
        return manifest


def record(
    path: str | Path,
    model: Any = None,
    *,
    keep: str | int | None = "64MB",
    golden: str | None = None,
    environment: Any = "full",
    batch_size: int | None = None,
    repeats: int = 2,
    warmup: int = 0,
    measure: bool = True,
    device: str | None = None,
) -> Recorder:
    """Record a known-good run into a bundle (a directory, or a zip when ``path`` ends in ``.zip``).

    Args:
        path: where the bundle goes.
        model: the nn.Module whose outermost calls are replayed on verify (its inputs are stored);
            without it, module outputs are still recorded but nothing can be replayed or timed.
        keep: budget for module outputs kept as tensors ("64MB"; 0 or None: stats only): the
            bundle write is most of what the block costs past the forward (256MB took ~4 forwards
            of a 27M-parameter model on the development box). Inputs and final outputs are
            always kept.
        golden: "cpu-fp64" to rerun on the CPU in float64 for the k×-reference-error gate.
        environment: "full" (every probe), "fast" (no framework probes), "none", or a Snapshot.
        batch_size: items per top-level call, for throughput.
        repeats: timing samples (at least; short ones are repeated while the fastest × the
            count is under 50 ms): the fastest, median and spread are stored. The block's own
            model calls, when run under ``torch.no_grad()`` with no probe beside them, count as
            one sample (their time less the hooks') if the first timed replay agrees within 15%;
            otherwise replays alone make the samples. The first replay doubles as the noise
            check, so the defaults (2, no warm-up: the block warmed the model) cost one forward on
            top of the block when the block's sample counts, two when it doesn't.
            warmup: replays run first and dropped.
        measure: replay for noise, timing and memory (False: only the block itself is recorded).
        device: the device the work should run on (the guard's expected device); default: the
            first accelerator torch can use, else cpu.

    Returns:
        A Recorder: a context manager (``with envsnap.record(...) as rec``) and a decorator.
    """
    return Recorder(
        path,
        model,
        keep=keep,
        golden=golden,
        environment=environment,
        batch_size=batch_size,
        repeats=repeats,
        warmup=warmup,
        measure=measure,
        device=device,
    )
