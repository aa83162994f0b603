"""Turn what the monitor gathered into a RunReport: the verdict, its sentence and its evidence.

The sentences are written for the person who has to act on them, and every number in them is
also in the report's structured fields (windows, devices, processes, timeline).
"""

from __future__ import annotations

from dataclasses import dataclass

from envsnap._version import __version__
from envsnap.live.monitor import EXPECT_VENDOR, LiveState
from envsnap.live.run_report import RUN_REPORT_SCHEMA, Expect, RunReport, Thresholds, Verdict, Window
from envsnap.live.verdict import MIN_SUSTAIN_S


@dataclass(frozen=True)
class RunFacts:
    """What happened to the workload, apart from the samples."""

    mode: str
    pid: int
    command: tuple[str, ...] | None
    started_at: str
    ended_at: str
    duration_s: float
    exit_code: int | None = None
    signal: str | None = None
    forwarded_signals: tuple[str, ...] = ()
    interrupted: bool | None = None


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 sample``, ``2 samples``, ``1 process``, ``3 processes`` (``many`` defaults to word + "s")."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def human_bytes(size: float) -> str:
    """1536 → "1.5 KiB"; binary units, one decimal."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def _no_accelerator_sentence(expect: Expect | None, has_sources: bool) -> str:
    if expect is not None:
        return (
            f"No accelerator: no {expect} device ({EXPECT_VENDOR[expect]}) on this host, so the workload "
            "ran on the CPU because there is nothing to fall back from."
        )
    where = (
        "GPU telemetry backends opened but reported no device" if has_sources else "no GPU telemetry backend"
    )
    return (
        f"No accelerator: {where} on this host (NVML, amdsmi/sysfs): the workload ran on the CPU because "
        "there is nothing to fall back from."
    )


def _window_text(window: Window, thresholds: Thresholds, sustain_s: float) -> str:
    gpu = (
        "" if window.gpu_util_percent_max is None else f", GPU utilization ≤ {window.gpu_util_percent_max:g}%"
    )
    waited = window.cpu_wait_percent_mean
    got = f"tree CPU {window.cpu_percent_mean:g}% on average"
    if waited:
        got += (
            f" plus {waited:g}% waiting for a core (demand {window.cpu_percent_mean + waited:g}%: "
            "the machine was busy, so the tree got less than it asked for)"
        )
    return (
        f"{window.start_s:g}–{window.end_s:g} s: {window.kind}: {got} "
        f"(CPU-bound means a demand ≥ {thresholds.cpu_busy_percent:g}% for ≥ {sustain_s:g} s){gpu}"
    )


def sustain_text(thresholds: Thresholds, sustain_s: float, duration_s: float) -> str:
    """Why the sustain window is as long as it is, for the evidence."""
    if sustain_s >= thresholds.sustain_s:
        return f"sustain window {sustain_s:g} s"
    return (
        f"sustain window {sustain_s:g} s: half of the {duration_s:g} s run, at least {MIN_SUSTAIN_S:g} s "
        f"({thresholds.sustain_s:g} s for runs of {2 * thresholds.sustain_s:g} s or more)"
    )


def _sentence(
    verdict: Verdict, state: LiveState, thresholds: Thresholds, expect: Expect | None, has_sources: bool
) -> str:
    windows = [w for w in state.detector.windows if w.kind == verdict]
    longest = max(windows, key=lambda w: w.end_s - w.start_s) if windows else None
    held = max((d.tree_memory_max_bytes or 0 for d in state.devices.values()), default=0)
    if verdict == "no-accelerator":
        return _no_accelerator_sentence(expect, has_sources)
    if verdict == "cpu-fallback-suspected" and longest is not None:
        why = (
            "it held no GPU memory"
            if state.attribution == "absent"
            else f"the GPU sat idle (≤ {thresholds.gpu_idle_percent:g}%)"
        )
        return (
            f"CPU fallback suspected: the workload was CPU-bound ({longest.cpu_percent_mean:g}% CPU) for "
            f"{longest.end_s - longest.start_s:g} s while {why}."
        )
    if verdict == "gpu-idle-while-busy" and longest is not None:
        return (
            f"GPU idle while busy: the workload holds {human_bytes(held)} of GPU memory, but the GPU sat at "
            f"≤ {thresholds.gpu_idle_percent:g}% for {longest.end_s - longest.start_s:g} s while it used "
            f"{longest.cpu_percent_mean:g}% CPU (work is happening on the CPU)."
        )
    if verdict == "gpu-active":
        peak = max((d.util_percent_max or 0 for d in state.devices.values()), default=0)
        owner = (
            f"held {human_bytes(held)} of GPU memory"
            if state.attribution == "found"
            else "ran while a GPU was busy (whose work can't be told here)"
        )
        return f"GPU active: the workload {owner}; GPU utilization up to {peak:g}%."
    duration = state.last.t_s if state.last else 0.0
    return (
        f"Inconclusive: in {plural(state.detector.samples, 'sample')} over {duration:g} s "
        "the workload was never CPU-bound "
        f"for {state.detector.sustain_s:g} s and was never seen using a GPU."
    )


def _evidence(state: LiveState, thresholds: Thresholds) -> tuple[str, ...]:
    lines: list[str] = []
    samples = state.detector.samples
    if samples:
        lines.append(
            f"tree CPU over {plural(samples, 'sample')}: mean {state.cpu_sum / samples:.1f}%, "
            f"max {state.cpu_max:.1f}% (100% = one core); peak RSS {human_bytes(state.rss_max)}; "
            f"{plural(len(state.processes), 'process', 'processes')}"
        )
    detector = state.detector
    lines.append(sustain_text(thresholds, detector.sustain_s, detector.last_s))
    lines.extend(_window_text(w, thresholds, detector.sustain_s) for w in detector.windows)
    if state.detector.active_s:
        lines.append(f"GPU active for about {state.detector.active_s:g} s")
    for device in sorted(state.devices.values(), key=lambda d: (d.vendor, d.index)):
        util = "unknown" if device.util_percent_max is None else f"max {device.util_percent_max:g}%"
        held = (
            f"; the tree held up to {human_bytes(device.tree_memory_max_bytes)}"
            if device.tree_memory_max_bytes is not None
            else ""
        )
        lines.append(
            f"{device.vendor} GPU {device.index} ({device.name or 'unnamed'}): utilization {util}{held}"
        )
    if state.attribution == "absent":
        lines.append("the driver lists the processes holding GPU memory, and none of them is in the tree")
    elif state.attribution_reason:
        lines.append(f"GPU attribution {state.attribution}: {state.attribution_reason}")
    lines.extend(f"sampler error: {error}" for error in state.sampler_errors)
    return tuple(lines)


def build_report(
    facts: RunFacts,
    state: LiveState,
    thresholds: Thresholds,
    *,
    expect: Expect | None,
    has_sources: bool,
) -> RunReport:
    """The run report for one finished (or interrupted) monitoring session."""
    detector = state.detector
    verdict = detector.verdict(has_devices=bool(state.devices))
    samples = detector.samples
    return RunReport(
        report="envsnap-run" if facts.mode == "run" else "envsnap-watch",
        schema=RUN_REPORT_SCHEMA,
        envsnap_version=__version__,
        mode="run" if facts.mode == "run" else "watch",
        command=facts.command,
        pid=facts.pid,
        started_at=facts.started_at,
        ended_at=facts.ended_at,
        duration_s=round(facts.duration_s, 3),
        exit_code=facts.exit_code,
        signal=facts.signal,
        forwarded_signals=facts.forwarded_signals or None,
        interrupted=facts.interrupted,
        expect=expect,
        thresholds=thresholds,
        verdict=verdict,
        summary=_sentence(verdict, state, thresholds, expect, has_sources),
        evidence=_evidence(state, thresholds),
        windows=tuple(detector.windows) or None,
        attribution=state.attribution,
        attribution_reason=state.attribution_reason,
        devices=tuple(sorted(state.devices.values(), key=lambda d: (d.vendor, d.index))) or None,
        sampler_errors=tuple(state.sampler_errors) or None,
        samples=samples,
        cpu_percent_mean=round(state.cpu_sum / samples, 1) if samples else None,
        cpu_percent_max=round(state.cpu_max, 1) if samples else None,
        rss_max_bytes=state.rss_max if samples else None,
        processes=tuple(sorted(state.processes.values(), key=lambda p: p.pid)),
        timeline_stride=state.stride,
        timeline=tuple(state.timeline),
    )
