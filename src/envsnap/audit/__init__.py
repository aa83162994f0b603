"""Migration audit: will this project and environment run on another target, and what has to change?

scanners (source: python_scan, native_scan, build_scan; artifacts; environment) → signals →
judge (per target) → findings → verdict. Pure functions over the snapshot and the files: the
command line and the TUI decide where the snapshot comes from.

    scan = scan_tree("my-project")                         # once
    report = audit(scan, snapshot, parse_target("rocm:gfx942"))
"""

from __future__ import annotations

from envsnap.audit.judges import judge
from envsnap.audit.layers import context, environment_findings
from envsnap.audit.model import AuditReport, Finding, ScanResult, Target
from envsnap.audit.scan import scan_tree
from envsnap.audit.target import parse_target, target_from_snapshot
from envsnap.audit.verdict import decide, rank
from envsnap.snapshot.model import Snapshot

__all__ = ["audit", "parse_target", "scan_tree", "target_from_snapshot"]


def audit(
    scan: ScanResult | None,
    snapshot: Snapshot | None,
    target: Target,
    *,
    environment_label: str | None = None,
) -> AuditReport:
    """Judge a project scan and a source environment for one target.

    Args:
        scan: what ``scan_tree`` found (None: no project given, the environment alone).
        snapshot: the source environment (None: the files alone).
        target: where to migrate.
        environment_label: where the snapshot came from, for the report.
    """
    ctx = context(snapshot)
    findings: list[Finding] = []
    if snapshot is not None:
        findings.extend(environment_findings(snapshot, target))
    if scan is not None:
        for signal in scan.signals:
            found = judge(signal, target, ctx)
            if found is not None:
                findings.append(found)
    findings.sort(key=lambda f: (*rank(f), f.layer, f.location))
    return AuditReport(
        target=target,
        project=scan.root if scan else None,
        environment=environment_label if snapshot is not None else None,
        verdict=decide(findings, target),
        findings=tuple(findings),
        files_seen=scan.files_seen if scan else 0,
        files_parsed=scan.files_parsed if scan else 0,
        skipped=scan.skipped if scan else (),
    )
