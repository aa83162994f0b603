"""The run report of ``envsnap run`` / ``envsnap watch``: what ran, what it was judged, and why.

A plain msgspec model, written as YAML next to the snapshots a team already keeps. Its verdict
rests on the ``thresholds`` it records, and the ``timeline`` is the sampled series the verdict was
computed from (thinned to at most a few thousand points on long runs; ``timeline_stride`` says by
how much), so a reader can check the verdict instead of trusting it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from envsnap.snapshot.model import Model

RUN_REPORT_SCHEMA = 1
"""Version of the run-report format written by this envsnap."""

Verdict = Literal[
    "gpu-active", "cpu-fallback-suspected", "gpu-idle-while-busy", "no-accelerator", "inconclusive"
]
"""``inconclusive``: never CPU-bound for the sustain window and never seen using a GPU."""
Attribution = Literal["found", "absent", "uncertain", "unavailable", "no-gpu"]
"""Whether a PID of the watched tree was seen holding GPU memory.

``found``: yes. ``absent``: the driver listed its GPU processes and none is ours. ``uncertain``:
the driver's PIDs don't belong to our PID namespace (containers), so a match can't be made.
``unavailable``: the backend doesn't report processes. ``no-gpu``: there is no GPU to hold.
"""
Expect = Literal["cuda", "rocm", "xpu", "mps"]
WindowKind = Literal["cpu-fallback-suspected", "gpu-idle-while-busy"]


class Thresholds(Model, frozen=True, kw_only=True, omit_defaults=False):
    """The numbers the verdict is computed with (all settable on the command line; always written)."""

    interval_s: float = 1.0
    """Time between samples; the next sample starts only after the previous one finished."""
    cpu_busy_percent: float = 90.0
    """Tree CPU at or above this (100 = one core fully used) counts as CPU-bound."""
    sustain_s: float = 10.0
    """How long a suspicious state must last without a break before it is flagged; runs shorter than
    twice this are judged on half their length, but never under 3 s (verdict.sustain_window)."""
    gpu_idle_percent: float = 5.0
    """GPU utilization at or below this counts as idle."""


class ProcessTick(Model, frozen=True, kw_only=True):
    """One process of the tree at one sample."""

    pid: int
    cpu_percent: float
    """100 = one core."""
    rss_bytes: int | None = None
    threads: int | None = None


class GpuTick(Model, frozen=True, kw_only=True):
    """One device at one sample, as the shared Sampler read it."""

    vendor: str
    index: int
    util_percent: float | None = None
    memory_used_bytes: int | None = None
    tree_memory_bytes: int | None = None
    """GPU memory held by PIDs of the watched tree; absent when none of them is listed."""


class Tick(Model, frozen=True, kw_only=True):
    """One sample of the whole tree and every device."""

    t_s: float
    """Seconds since monitoring started."""
    cpu_percent: float
    """Sum over the tree's processes (200 = two cores)."""
    cpu_wait_percent: float | None = None
    """Time the tree's threads were runnable but waiting for a core (100 = one thread all the time)."""
    rss_bytes: int
    threads: int
    processes: tuple[ProcessTick, ...] = ()
    gpus: tuple[GpuTick, ...] = ()
    on_gpu: bool | None = None
    """Whether a PID of the tree held GPU memory; None when that can't be told."""


class Window(Model, frozen=True, kw_only=True):
    """A stretch of samples that stayed suspicious for at least ``sustain_s``."""

    kind: WindowKind
    start_s: float
    end_s: float
    cpu_percent_mean: float
    cpu_wait_percent_mean: float | None = None
    """Mean run-queue wait over the window: CPU the tree wanted but the machine was too busy to give."""
    gpu_util_percent_max: float | None = None


class ProcessSummary(Model, frozen=True, kw_only=True):
    """One process of the tree over the whole run."""

    pid: int
    name: str | None = None
    first_seen_s: float
    last_seen_s: float
    cpu_percent_max: float
    rss_max_bytes: int | None = None
    threads_max: int | None = None


class DeviceSummary(Model, frozen=True, kw_only=True):
    """A device the sampler saw during the run."""

    vendor: str
    index: int
    name: str | None = None
    memory_total_bytes: int | None = None
    util_percent_max: float | None = None
    tree_memory_max_bytes: int | None = None


class RunReport(Model, frozen=True, kw_only=True):
    """Everything ``envsnap run``/``watch`` observed about one workload. Field order is file order."""

    report: Literal["envsnap-run", "envsnap-watch"]
    """What this file is: the report of ``envsnap run`` or of ``envsnap watch`` (always written, so a
    reader can tell it from a snapshot). Reports of envsnap 0.1.0 say ``envsnap-run`` for both; their
    ``mode`` tells them apart."""
    schema: int
    """RUN_REPORT_SCHEMA of the envsnap that wrote it."""
    envsnap_version: str
    mode: Literal["run", "watch"]
    command: tuple[str, ...] | None = None
    """The command ``envsnap run`` started; for ``watch``, the process's command line."""
    pid: int
    started_at: str
    """UTC, ISO 8601 with ``Z``."""
    ended_at: str
    duration_s: float
    exit_code: int | None = None
    """The workload's exit status (128+n after signal n); absent for ``watch`` (not our child)."""
    signal: str | None = None
    """``run``: the signal that ended the workload ("SIGINT"); ``watch``: the one that stopped watching."""
    forwarded_signals: tuple[str, ...] | None = None
    """Signals envsnap received and passed on to the workload."""
    interrupted: bool | None = None
    """``watch`` stopped by Ctrl-C or a signal before the process ended."""
    expect: Expect | None = None
    thresholds: Thresholds
    verdict: Verdict
    summary: str
    """The verdict in one sentence."""
    evidence: tuple[str, ...] = ()
    windows: tuple[Window, ...] | None = None
    attribution: Attribution
    attribution_reason: str | None = None
    devices: tuple[DeviceSummary, ...] | None = None
    sampler_errors: tuple[str, ...] | None = None
    samples: int
    cpu_percent_mean: float | None = None
    cpu_percent_max: float | None = None
    rss_max_bytes: int | None = None
    processes: tuple[ProcessSummary, ...] = ()
    timeline_stride: int = 1
    """Every ``timeline_stride``-th sample is kept in ``timeline`` (long runs are thinned)."""
    timeline: tuple[Tick, ...] = ()

    def to_yaml(self) -> str:
        """The report as YAML text."""
        from envsnap.snapshot.yaml_text import dump_yaml

        return dump_yaml(
            self,
            f"envsnap {self.mode} report (schema {self.schema}), written by envsnap {self.envsnap_version}",
        )

    def to_json(self) -> str:
        """The report as one line of ASCII JSON (the object ``envsnap watch --json`` prints)."""
        from envsnap.snapshot.json_text import to_json

        return to_json(self, indent=None)


def save_run_report(report: RunReport, path: Path, *, overwrite: bool = True) -> Path:
    """Write the report atomically (a killed envsnap leaves the old file or none, never half of one).

    JSON when ``path`` ends in ``.json``, else YAML. Without ``overwrite`` an existing file is kept
    and the report gets the next free ``-n`` name (live/output_path.py).

    Returns:
        The path written.

    Raises:
        BadInput: the file can't be written.
    """
    from envsnap.live.output_path import write_report

    text = report.to_json() + "\n" if path.suffix.lower() == ".json" else report.to_yaml()
    return write_report(path, text, overwrite=overwrite)


def load_run_report(path: Path | str) -> RunReport:
    """Read a run report back (YAML or JSON: YAML reads JSON too).

    Raises:
        BadInput: unreadable, not YAML, or not a run report.
    """
    from envsnap.snapshot.files import decode_text, read_bytes_capped
    from envsnap.snapshot.yaml_text import parse_yaml

    name = str(path)
    return run_report_from_data(
        parse_yaml(decode_text(read_bytes_capped(Path(path), name), name), name), name
    )


def run_report_from_data(data: Any, name: str) -> RunReport:
    """Validate parsed YAML (or JSON) as a run report.

    Raises:
        BadInput: written by a newer envsnap, or fields of the wrong shape (one line naming ``name``).
    """
    import msgspec

    from envsnap.errors import BadInput
    from envsnap.snapshot.safe_text import one_line

    schema = data.get("schema") if isinstance(data, dict) else None
    if isinstance(schema, int) and not isinstance(schema, bool) and schema > RUN_REPORT_SCHEMA:
        raise BadInput(
            f"{name}: written by a newer envsnap (run report schema {schema}); this envsnap reads "
            f"schema {RUN_REPORT_SCHEMA} and older. Upgrade envsnap to read it."
        )
    try:
        return msgspec.convert(data, RunReport)
    except msgspec.ValidationError as err:
        # msgspec quotes the offending value, which is untrusted text.
        raise BadInput(f"{name}: not a valid `envsnap run`/`watch` report: {one_line(str(err))}") from None
