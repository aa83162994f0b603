"""Helpers for the security suite: hostile snapshots written to disk, and the CLI run in-process."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from envsnap import cli
from envsnap.snapshot import store
from envsnap.snapshot.model import Package, PackageSource, Snapshot
from tests.fakes.diff_snapshots import make


def with_package(package: Package, base: Snapshot | None = None) -> Snapshot:
    """A valid snapshot plus one (hostile) package."""
    base = base if base is not None else make()
    return msgspec.structs.replace(base, packages=(*(base.packages or ()), package))


def url_package(url: str, name: str = "foo", kind: str = "url") -> Package:
    return Package(name=name, version="1.0", source=PackageSource(kind=kind, url=url))  # type: ignore[arg-type]


def write(tmp_path: Path, snapshot: Snapshot, name: str = "hostile.yaml") -> Path:
    path = tmp_path / name
    store.save(snapshot, path)
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``envsnap ARGV`` in this process: (exit code, stdout, stderr)."""
    code = cli.run(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err
