"""Probe orchestration: run every probe concurrently, each under its own deadline, and assemble a Snapshot.

Probes run in daemon threads. A probe that hangs past its deadline (a stuck driver call, an NFS
mount that never answers) is abandoned and recorded as ``failed`` with the reason; one that
raises is recorded the same way. Either way the rest of the snapshot is still produced, which is
the point: a broken layer is exactly what the user needs to see.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

import msgspec

from envsnap._version import __version__
from envsnap.probes import apple, host, intel
from envsnap.probes import env_vars as environment
from envsnap.probes.amd import probe as amd
from envsnap.probes.base import ProbeContext
from envsnap.probes.extensions import probe as extensions
from envsnap.probes.frameworks import probe as frameworks
from envsnap.probes.nvidia import probe as nvidia
from envsnap.probes.python import probe as python_env
from envsnap.probes.toolkits import probe as toolkits
from envsnap.snapshot.finalize import finalize, utc_now
from envsnap.snapshot.model import (
    SCHEMA_VERSION,
    Accelerators,
    CudaToolkit,
    Environment,
    Extensions,
    Frameworks,
    Host,
    IntelInfo,
    Meta,
    MpsInfo,
    Origin,
    ProbeRun,
    Sample,
    Snapshot,
    Status,
    Toolkits,
    TorchInfo,
)

T = TypeVar("T")

ProbeState = Literal["started", "finished"]


@dataclass(frozen=True)
class ProbeEvent:
    """Progress report for one probe, for spinners and the TUI's loading states."""

    name: str
    state: ProbeState
    run: ProbeRun | None = None
    """Set when ``state`` is ``finished``."""
    value: object | None = None
    """What the probe returned (its section or reading), when it finished in time: lets a live
    view show each layer the moment its own probe returns (see ``partial_snapshot``)."""


ProgressCallback = Callable[[ProbeEvent], None]


@dataclass(frozen=True)
class Probe(Generic[T]):
    """A probe function, how long it may take, and what it yields when it cannot finish."""

    name: str
    run: Callable[[ProbeContext], T]
    failed: Callable[[str], T]
    timeout_s: float
    section_of: Callable[[T], object] = lambda value: value
    """The section whose status and reason the probe's ProbeRun reports."""


@dataclass
class _Handle(Generic[T]):
    probe: Probe[T]
    started: float
    done: threading.Event = field(default_factory=threading.Event)
    value: T | None = None
    error: str | None = None
    finished: float | None = None
    reported: bool = False
    """Whether the "finished" event went out (from the probe's thread, or at its deadline)."""


class _Runner:
    """Starts probes at once and collects each by its own deadline."""

    def __init__(self, ctx: ProbeContext, progress: ProgressCallback | None, scale: float) -> None:
        self._ctx = ctx
        self._progress = progress
        self._scale = scale
        self.runs: list[ProbeRun] = []
        self._report_lock = threading.Lock()

    def start(self, probe: Probe[T]) -> _Handle[T]:
        handle: _Handle[T] = _Handle(probe, time.monotonic())
        self._emit(ProbeEvent(probe.name, "started"))

        def target() -> None:
            try:
                handle.value = probe.run(self._ctx)
            except Exception as err:  # a probe bug must not take the snapshot down
                handle.error = f"{type(err).__name__}: {err}"
            handle.finished = time.monotonic()
            handle.done.set()
            # Report at once, not when collect() gets to this probe's result in its fixed order:
            # a live view then shows the NVIDIA layer without waiting for torch's import.
            if handle.finished - handle.started <= probe.timeout_s * self._scale:
                self._report(handle, self._run_of(handle), handle.value)

        threading.Thread(target=target, name=f"envsnap-probe-{probe.name}", daemon=True).start()
        return handle

    def result(self, handle: _Handle[T]) -> T:
        probe = handle.probe
        limit = probe.timeout_s * self._scale
        remaining = handle.started + limit - time.monotonic()
        if not handle.done.wait(max(remaining, 0.0)):
            reason = f"{probe.name} probe timed out after {limit:g} s"
            value = probe.failed(reason)
            run = ProbeRun(name=probe.name, status="failed", duration_s=round(limit, 3), reason=reason)
        else:
            run = self._run_of(handle)
            if handle.error is not None:
                value = probe.failed(run.reason or handle.error)
            else:
                assert handle.value is not None
                value = handle.value
        self.runs.append(run)
        self._report(handle, run, value)
        return value

    def _run_of(self, handle: _Handle[T]) -> ProbeRun:
        """The record of a probe that finished (or crashed) before its deadline."""
        probe = handle.probe
        duration = round((handle.finished or time.monotonic()) - handle.started, 3)
        if handle.error is not None:
            reason = f"{probe.name} probe crashed: {handle.error}"
            return ProbeRun(name=probe.name, status="failed", duration_s=duration, reason=reason)
        section = probe.section_of(handle.value)  # type: ignore[arg-type]
        status: Status = _status_of(section)
        return ProbeRun(name=probe.name, status=status, duration_s=duration, reason=_reason_of(section))

    def _report(self, handle: _Handle[T], run: ProbeRun, value: T | None) -> None:
        with self._report_lock:
            if handle.reported:
                return
            handle.reported = True
        self._emit(ProbeEvent(handle.probe.name, "finished", run, value))

    def _emit(self, event: ProbeEvent) -> None:
        if self._progress is not None:
            self._progress(event)


def _status_of(section: object) -> Status:
    status = getattr(section, "status", "ok")
    if status == "skipped":
        return "skipped"
    return "failed" if status == "failed" else "ok"


def _reason_of(section: object) -> str | None:
    reason = getattr(section, "reason", None)
    return reason if isinstance(reason, str) else None


HOST = Probe("host", host.probe, lambda r: Host(status="failed", reason=r), 10.0)
PYTHON = Probe("python", python_env.probe, python_env.failed, 60.0, lambda r: r.python)
ENVIRONMENT = Probe("environment", environment.probe, lambda r: Environment(status="failed", reason=r), 5.0)
NVIDIA = Probe("nvidia", nvidia.probe, nvidia.failed, 30.0, lambda r: r.info)
AMD = Probe("amd", amd.probe, amd.failed, 30.0, lambda r: r.info)
INTEL = Probe("intel", intel.probe, lambda r: IntelInfo(status="failed", reason=r), 10.0)
MPS = Probe("mps", apple.probe, lambda r: MpsInfo(status="failed", reason=r), 10.0)
TOOLKITS = Probe(
    "toolkits",
    toolkits.probe,
    lambda r: Toolkits(cuda=CudaToolkit(status="failed", reason=r)),
    20.0,
    lambda r: r.cuda,
)
FRAMEWORKS = Probe(
    "frameworks",
    frameworks.probe,
    lambda r: Frameworks(torch=TorchInfo(status="failed", reason=r)),
    90.0,
    lambda r: r.torch,
)
EXTENSIONS = Probe("extensions", extensions.probe, lambda r: Extensions(status="failed", reason=r), 90.0)


def collect(
    ctx: ProbeContext | None = None,
    *,
    progress: ProgressCallback | None = None,
    anonymize_identity: bool = False,
    timeout_scale: float = 1.0,
    captured_at: str | None = None,
) -> Snapshot:
    """Probe the live machine (and the target interpreter) into a redacted Snapshot.

    Args:
        ctx: what to probe; the running interpreter on this machine by default.
        progress: called from worker threads as probes start and finish.
        anonymize_identity: mask hostname, usernames in paths, serials and UUIDs.
        timeout_scale: multiplies every probe's deadline (``--timeout-scale`` on slow hosts).
        captured_at: capture time to record (tests freeze it); now by default.

    Returns:
        The snapshot, sorted, redacted and fingerprinted; findings are not attached here.
    """
    ctx = ctx or ProbeContext()
    runner = _Runner(ctx, progress, timeout_scale)
    h_nvidia = runner.start(NVIDIA)  # GPU first: the layer a live view shows first
    handles_frameworks = runner.start(FRAMEWORKS) if ctx.frameworks else None
    h_ext = runner.start(EXTENSIONS)
    h_python = runner.start(PYTHON)
    h_amd = runner.start(AMD)
    h_host = runner.start(HOST)
    h_env = runner.start(ENVIRONMENT)
    h_intel = runner.start(INTEL)
    h_mps = runner.start(MPS)
    h_toolkits = runner.start(TOOLKITS)

    python_reading = runner.result(h_python)
    nvidia_reading = runner.result(h_nvidia)
    amd_reading = runner.result(h_amd)
    framework_section = (
        runner.result(handles_frameworks)
        if handles_frameworks is not None
        else Frameworks(torch=TorchInfo(status="skipped", reason="--no-frameworks"))
    )
    extension_section = runner.result(h_ext)
    telemetry = nvidia_reading.telemetry + amd_reading.telemetry
    snapshot = Snapshot(
        schema=SCHEMA_VERSION,
        meta=Meta(
            envsnap_version=__version__,
            captured_at=captured_at or utc_now(),
            origin=Origin(kind="probe"),
        ),
        host=runner.result(h_host),
        python=python_reading.python,
        packages=python_reading.packages,
        environment=runner.result(h_env),
        accelerators=Accelerators(
            nvidia=nvidia_reading.info,
            amd=amd_reading.info,
            intel=runner.result(h_intel),
            mps=runner.result(h_mps),
        ),
        toolkits=runner.result(h_toolkits),
        frameworks=framework_section,
        extensions=extension_section,
        telemetry=Sample(captured_at=captured_at or utc_now(), devices=telemetry) if telemetry else None,
    )
    scan_s = next((run.duration_s for run in runner.runs if run.name == "extensions"), None)
    meta = msgspec.structs.replace(
        snapshot.meta,
        probes=tuple(sorted(runner.runs, key=lambda run: run.name)),
        extension_scan_s=scan_s,
    )
    snapshot = msgspec.structs.replace(snapshot, meta=meta)
    return finalize(snapshot, anonymize_identity=anonymize_identity)


def partial_snapshot(values: Mapping[str, object]) -> Snapshot:
    """A snapshot of the probes finished so far (by probe name, from ``ProbeEvent.value``).

    For a live view while the collection runs: unprobed sections are None, nothing is sorted,
    fingerprinted or evaluated, and the environment (where secrets live) is left out.
    """
    python = values.get("python")
    nvidia_reading = values.get("nvidia")
    amd_reading = values.get("amd")
    nvidia_info = getattr(nvidia_reading, "info", None)
    amd_info = getattr(amd_reading, "info", None)
    intel, mps = values.get("intel"), values.get("mps")
    has_accelerators = any(v is not None for v in (nvidia_info, amd_info, intel, mps))
    return Snapshot(
        schema=SCHEMA_VERSION,
        meta=Meta(envsnap_version=__version__, captured_at="", origin=Origin(kind="probe")),
        host=_typed(values.get("host"), Host),
        python=getattr(python, "python", None),
        packages=getattr(python, "packages", None),
        accelerators=Accelerators(
            nvidia=nvidia_info,
            amd=amd_info,
            intel=_typed(intel, IntelInfo),
            mps=_typed(mps, MpsInfo),
        )
        if has_accelerators
        else None,
        toolkits=_typed(values.get("toolkits"), Toolkits),
        frameworks=_typed(values.get("frameworks"), Frameworks),
        extensions=_typed(values.get("extensions"), Extensions),
    )


def _typed(value: object, kind: type[T]) -> T | None:
    return value if isinstance(value, kind) else None
