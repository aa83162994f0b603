"""Shared pieces of the audit tests: fixture projects and real snapshots as environments."""

from __future__ import annotations

from pathlib import Path

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.model import AuditReport
from envsnap.importers import parse_report
from envsnap.snapshot.finalize import finalize
from envsnap.snapshot.model import Snapshot
from tests.conftest import REPO_ROOT

PROJECTS = REPO_ROOT / "tests" / "data" / "projects"
DATA = REPO_ROOT / "tests" / "data"


def imported(relative: str, kind: str = "collect-env") -> Snapshot:
    """A real report (tests/data) imported into a snapshot, as `envsnap import` does."""
    path = DATA / relative
    snapshot = parse_report(kind, path.read_text(), path.name, captured_at="2026-11-30T00:00:00Z")  # type: ignore[arg-type]
    return finalize(snapshot)


def project(name: str) -> str:
    return str(PROJECTS / name)


def at(findings: object, rule: str) -> list[str]:
    """Locations of the findings of one rule."""
    return [f.location for f in findings if f.rule == rule]  # type: ignore[attr-defined]


def audit_files(root: Path, files: dict[str, str], target: str) -> AuditReport:
    """The audit, with no environment, of a project made of ``files`` (relative path -> text)."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return audit(scan_tree(str(root)), None, parse_target(target))


def raised(result: AuditReport) -> set[str]:
    """The rules of the findings that raise the risk (anything above lower)."""
    return {f.rule for f in result.findings if f.risk != "lower"}


__all__ = ["PROJECTS", "Path", "at", "audit_files", "imported", "project", "raised"]
