"""Migration audit: will this project and environment run on another target, and what has to change?

scanners (source: python_scan, native_scan, build_scan; artifacts; environment) → signals →
judge (per target) → findings → verdict. Pure functions over the snapshot and the files: the
command line and the TUI decide where the snapshot comes from.

    scan = scan_tree("my-project")                         # once
    report = audit(scan, snapshot, parse_target("rocm:gfx942"))
"""

from __future__ import annotations

import msgspec

from envsnap.audit.inventory import hipify_inventory
from envsnap.audit.judges import Context, judge
from envsnap.audit.model import AuditReport, Finding, ScanResult, Target
from envsnap.audit.roles import role_of
from envsnap.audit.rollup import roll_up
from envsnap.audit.scan import scan_tree
from envsnap.audit.support import (
    beside_framework,
    beside_torch,
    compute_frameworks,
    covered,
    deployment_script,
    evidence,
    has_torch_path,
    optional_engine,
)
from envsnap.audit.target import parse_target, target_from_snapshot
from envsnap.audit.verdict import decide, rank
from envsnap.snapshot.model import Snapshot
from envsnap.snapshot.scrub import scrub_report

__all__ = ["audit", "parse_target", "scan_tree", "target_from_snapshot"]


def audit(
    scan: ScanResult | None,
    snapshot: Snapshot | None,
    target: Target,
    *,
    environment_label: str | None = None,
    include_tests: bool = False,
    top: int = 10,
) -> AuditReport:
    """Judge a project scan and a source environment for one target.

    Args:
        scan: what ``scan_tree`` found (None: no project given, the environment alone).
        snapshot: the source environment (None: the files alone).
        target: where to migrate.
        environment_label: where the snapshot came from, for the report.
        include_tests: count findings in tests, examples, benchmarks, docs, scratch and vendored code
            in the verdict (by default they are listed, not counted).
        top: rows per roll-up table.
    """
    findings: list[Finding] = []
    ctx = Context()
    if snapshot is not None:
        # The environment's layers (installed distributions, packaging's version rules): not loaded for
        # an audit of the files alone.
        from envsnap.audit.layers import context, environment_findings

        ctx = context(snapshot)
        findings.extend(environment_findings(snapshot, target))
    proof = evidence(scan.signals, target, include_all=include_tests) if scan is not None else ()
    if scan is not None:
        torch_path = has_torch_path(scan.signals, include_all=include_tests)
        frameworks = compute_frameworks(scan.signals, include_all=include_tests)
        for signal in scan.signals:
            found = judge(signal, target, ctx)
            if found is None:
                continue
            if proof:
                found = covered(found, signal, target, proof)
            found = optional_engine(found, signal, target, proof, torch_path)
            if torch_path:
                found = deployment_script(beside_torch(found, signal), signal)
            found = beside_framework(found, signal, frameworks)
            role = role_of(signal.file) if signal.file else "core"
            findings.append(msgspec.structs.replace(found, role=role) if role != "core" else found)
    findings = _collapse(findings)
    findings.sort(key=lambda f: (*rank(f), f.role != "core", f.layer, f.location))
    counted = [f for f in findings if include_tests or f.role == "core"]
    # A file or folder name can hold a token (a key pasted as a file name): every string of the report,
    # locations, skipped files and roll-up components included, is redacted, not only the code lines.
    report = AuditReport(
        target=target,
        project=scan.root if scan else None,
        environment=environment_label if snapshot is not None else None,
        verdict=decide(counted, target, supported=proof),
        findings=tuple(findings),
        files_seen=scan.files_seen if scan else 0,
        files_parsed=scan.files_parsed if scan else 0,
        skipped=scan.skipped if scan else (),
        rollup=roll_up(counted, top=top),
        not_counted=0
        if include_tests
        else sum(1 for f in findings if f.role != "core" and f.effort != "none"),
        hipify=hipify_inventory(scan.signals, include_all=include_tests)
        if scan is not None and target.kind == "rocm"
        else None,
    )
    return scrub_report(report)


COLLAPSED = frozenset(
    {
        "inline-ptx",
        "stays-cuda-only",
        "warp-mask-32bit",
        "warp-size-32",
        "cuda-only-import",
        "device-agnostic",
    }
)
"""Rules whose repeats in one file are the same fact (each asm line, each imported name): one row, counted."""


def _collapse(findings: list[Finding]) -> list[Finding]:
    """One finding per rule, file and meaning for COLLAPSED rules: ten asm lines of a file are one row."""
    groups: dict[tuple[str, str, str, str, str], list[Finding]] = {}
    for item in findings:
        path = item.location.split(":", 1)[0] if item.layer == "source" else item.location
        if item.rule not in COLLAPSED:
            path = item.location
        groups.setdefault((item.rule, path, item.meaning, item.risk, item.effort), []).append(item)
    return [
        items[0] if len(items) == 1 else msgspec.structs.replace(items[0], count=sum(i.count for i in items))
        for items in groups.values()
    ]
