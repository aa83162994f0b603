"""Shared pieces of the audit tests: fixture projects and real snapshots as environments."""

from __future__ import annotations

from pathlib import Path

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


__all__ = ["PROJECTS", "Path", "at", "imported", "project"]
