"""The requirements output is something pip itself accepts and resolves to exactly the pins."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap import cli
from envsnap.errors import ExitCode
from envsnap.snapshot import store
from tests.fakes.diff_snapshots import make

pytestmark = pytest.mark.slow

PINS = (("mpmath", "1.3.0", ()), ("six", "1.17.0", ()), ("tabulate", "0.8.10", ()), ("zipp", "3.23.0", ()))


def test_pip_resolves_the_requirements_file_to_exactly_the_pins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = tmp_path / "known-good.yaml"
    store.save(make(rows=PINS), snapshot)
    requirements = tmp_path / "requirements.txt"
    assert cli.run(["rollback", str(snapshot), "--no-live", "-o", str(requirements)]) == ExitCode.OK
    report = tmp_path / "report.json"
    dry_run = [
        "install",
        "--dry-run",
        "--ignore-installed",
        "--no-deps",
        "--quiet",
        "--disable-pip-version-check",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pip", *dry_run, "--report", str(report), "-r", str(requirements)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    chosen = {
        item["metadata"]["name"]: item["metadata"]["version"]
        for item in json.loads(report.read_text())["install"]
    }
    assert chosen == {name: version for name, version, _ in PINS}
