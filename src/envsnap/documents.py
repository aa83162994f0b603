"""Open any envsnap file: a snapshot, a report of ``envsnap run``/``watch``, an ``envsnap.verify``
report (``report: envsnap-verify``), a fleet folder, or a pasted bug report (imported on the fly).
Textual-free: ``envsnap tui FILE`` opens what this returns, and so may any other front end.

The file is read and parsed once, by ``store``'s distrustful reader (size cap, no anchors, aliases
or tags); its top-level ``report:`` key then says what it is. Every run report writes
``report: envsnap-run`` or ``envsnap-watch`` and a snapshot never has the key, so the kind is told
from the data the viewer needs anyway, without a second read or a guess from the file name.
The TUI runs it in its file worker, never on the UI thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envsnap.errors import BadInput

if TYPE_CHECKING:
    from envsnap.fleet.group import FleetGroups, LoadedFleet
    from envsnap.inprocess.verify.report import VerifyReport
    from envsnap.live.run_report import RunReport
    from envsnap.snapshot.model import Snapshot

_REPORT_KEY = re.compile(r"""(?:^|[{,])\s*["']?report["']?\s*:\s*["']?([\w-]*)""", re.MULTILINE)
"""A top-level ``report:`` key, in YAML or in JSON (``{"report": "envsnap-watch", ...}``)."""

RUN_REPORT_KINDS = ("envsnap-run", "envsnap-watch")
"""Values of ``report:`` that mark a run report (live/run_report.py: RunReport.report)."""


@dataclass(frozen=True)
class FleetDocument:
    """A fleet folder opened: the nodes and their groups (``load_fleet_document``)."""

    loaded: LoadedFleet
    groups: FleetGroups


def is_run_report(data: Any) -> bool:
    """Whether parsed YAML is an ``envsnap run``/``watch`` report (by its ``report:`` key)."""
    return isinstance(data, dict) and data.get("report") in RUN_REPORT_KINDS


def load_document(path: Path) -> Snapshot | RunReport | FleetDocument | VerifyReport:
    """Read a snapshot or a run report, whichever the file holds.

    ``-`` reads a snapshot from standard input, as ``envsnap show -`` does.

    Raises:
        BadInput: unreadable, not YAML, or neither a valid snapshot nor a valid run report
            (one line naming the file).
    """
    from envsnap import api
    from envsnap.snapshot import files, store, yaml_text

    if str(path) == "-":
        return api.load("-")
    if path.is_dir():  # a fleet folder (envsnap fleet collect): read and grouped here, off the UI thread
        return load_fleet_document(path)
    name = str(path)
    cap = store.snapshot_max_bytes()
    text = files.decode_text(files.read_bytes_capped(path, name, cap), name)
    head = text[:4096]  # reports write `report:` first; a paste that mentions one further down is no report
    if not _REPORT_KEY.search(head):
        from envsnap.importers import envsnap_report, load_any, looks_like_snapshot

        if envsnap_report.looks_like_report(text):  # its block has `schema:` lines: before the next test
            return envsnap_report.parse(text, name)
        if not looks_like_snapshot(text):  # a pasted bug report (collect_env, nvidia-smi...): import it
            from envsnap.snapshot.finalize import finalize, utc_now

            return finalize(load_any(text, name, captured_at=utc_now()))
    # A verify report's metrics may be infinite (identical outputs); nothing else may be.
    metrics = any(m.group(1) == "envsnap-verify" for m in _REPORT_KEY.finditer(head))
    data = yaml_text.parse_yaml(text, name, cap, infinite_floats=metrics)
    if is_run_report(data):
        from envsnap.live.run_report import run_report_from_data

        return run_report_from_data(data, name)
    if isinstance(data, dict) and data.get("report") == "envsnap-verify":
        from envsnap.inprocess.verify.report import load_report

        return load_report(text, name)
    if isinstance(data, dict) and data.get("report") == "envsnap-guard":
        raise BadInput(
            f"{name}: this is an `envsnap.guard` op report; the TUI opens snapshots and "
            "`envsnap run`/`watch` reports"
        )
    return store.from_builtins(data, name, text)


def load_fleet_document(path: Path) -> FleetDocument:
    """A fleet folder, its nodes grouped by fingerprint (BadInput when it can't be read)."""
    from envsnap.fleet.group import group, load_fleet

    loaded = load_fleet(path)
    return FleetDocument(loaded, group(loaded.nodes))
