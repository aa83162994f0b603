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


SECRET = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"
"""A token-shaped secret the hostile pastes carry (HF_TOKEN=...): it must never be printed."""
HOSTILE = "[bold red]X[/] \x1b[31mY\x1b]0;PWNED\x07 " + "M" * 200_000
"""Rich markup, a terminal escape, an OSC title and a 200 KB field, for a paste's free text."""


def check_paste_safely(
    capsys: pytest.CaptureFixture[str], path: Path, *, markup_as_written: bool = True
) -> tuple[int, str, str]:
    """``envsnap check PATH`` on a hostile paste: read (exit 0 or 1, never refused or crashed), no
    escape, bell or secret printed, output bounded; markup dropped or escaped (or, with
    ``markup_as_written``, printed as written by the plain renderer). (exit code, stdout, stderr)."""
    code, out, err = run_cli(capsys, "check", str(path))
    assert code in (0, 1), err
    for stream in (out, err):
        assert "\x1b" not in stream
        assert "\x07" not in stream
        assert SECRET not in stream
        shown = "[bold red]" not in stream or "\\[bold red]" in stream
        assert shown or (markup_as_written and "[bold red]X[/]" in stream)
        assert len(stream) < 100_000
    return code, out, err
