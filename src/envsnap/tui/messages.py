"""Messages the TUI's thread workers post to the app: one past-tense event per finished piece of work.

``post_message`` is thread-safe, so workers never touch widgets; the app's handlers put the
payloads into the main screen's reactives, and the panes redraw from those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from envsnap.tui.catalog import SnapshotEntry
from envsnap.tui.safe import display_safe
from envsnap.tui.telemetry import DeviceHistory, HostLoad, ProcessInfo

if TYPE_CHECKING:
    from envsnap.audit.model import AuditReport
    from envsnap.documents import FleetDocument
    from envsnap.live.run_report import RunReport
    from envsnap.snapshot.model import Change, ProbeRun, Sample, Snapshot


class DataMessage(Message):
    """A message whose fields come from files, drivers or probes: display-safe from the start.

    Every string in it (however deep) is escaped and clipped by ``tui.safe.display_safe`` when
    the worker makes the message, so the widgets that show it can't be steered by the data.
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        for item in fields(self):  # type: ignore[arg-type]  # subclasses are dataclasses
            setattr(self, item.name, display_safe(getattr(self, item.name)))


@dataclass
class ProbeFinished(DataMessage):
    """One probe of a live collection finished, with every section finished so far."""

    run: ProbeRun
    partial: Snapshot | None = None
    """The probes finished so far as a snapshot (``collector.partial_snapshot``), for the Overview."""


@dataclass
class SnapshotCollected(DataMessage):
    """The live machine was probed, or a snapshot file was read, and findings attached."""

    snapshot: Snapshot
    path: Path | None = None
    """The file it was read from; None for a live collection."""


@dataclass
class RunReportLoaded(DataMessage):
    """The opened file is an ``envsnap run``/``watch`` report (read, validated, secrets scrubbed)."""

    report: RunReport
    path: Path


@dataclass
class SnapshotLoadFailed(DataMessage):
    """A snapshot or run report file could not be read, or collection crashed: shown as an error state."""

    error: str
    """One line, e.g. "x.yaml:3: not valid YAML: ..."."""


@dataclass
class SampleTaken(DataMessage):
    """A telemetry sample, with the history and process details the worker derived from it."""

    sample: Sample
    history: Mapping[str, DeviceHistory]
    """Per device key (see telemetry.device_key), the series after this sample."""
    processes: Mapping[int, ProcessInfo]
    """psutil's view of the PIDs in the sample, where they exist on this host."""
    host: HostLoad | None = None
    """This host's CPU and memory at the sample (None when not read)."""

    def can_replace(self, message: Message) -> bool:
        """A newer sample makes a queued older one redundant (history travels with it)."""
        return isinstance(message, SampleTaken)


@dataclass
class SamplerFailed(DataMessage):
    """Sampling raised (not a per-backend error, which arrives inside a Sample)."""

    error: str
    retry_in_s: float


@dataclass
class SnapshotSaved(Message):
    """The live state was written to a snapshot file."""

    path: Path


@dataclass
class SaveFailed(DataMessage):
    """Writing a snapshot failed."""

    error: str


@dataclass
class SnapshotsListed(DataMessage):
    """The snapshots folder was (re)read."""

    folder: Path
    entries: tuple[SnapshotEntry, ...]


@dataclass
class DiffComputed(DataMessage):
    """Changes between two snapshots, ready to show."""

    old_label: str
    new_label: str
    changes: tuple[Change, ...]
    not_compared: tuple[str, ...] = ()
    """Sections only one side records (an import lacks them): not compared, not "removed"."""
    working: Mapping[str, str] = field(default_factory=dict)
    """Per path of a section that started or stopped working, what its working side holds
    (``driver 590.48.01 · 2× NVIDIA H100``): "skipped → ok" alone hides what appeared."""


@dataclass
class DiffFailed(DataMessage):
    """The diff could not be computed (diff module missing, or a file unreadable)."""

    error: str


@dataclass
class FleetLoaded(DataMessage):
    """The opened path is a fleet folder, read and grouped (every string display-safe, as for a snapshot)."""

    document: FleetDocument
    path: Path


@dataclass
class AuditComputed(Message):
    """The audit of the project for one target is ready."""

    report: AuditReport


@dataclass
class AuditFailed(Message):
    """The target was refused or the scan failed (one line)."""

    error: str
