"""The migration story on a real venv with real pip: save, change, diff, roll back, diff again.

Small pure-Python wheels with two published versions each (zipp, tabulate) and one to remove (six);
pip gets them from its configured index (PyPI, or a local mirror on offline machines).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envsnap import cli
from envsnap.errors import ExitCode
from envsnap.rollback.apply import apply
from envsnap.snapshot import store
from tests.rollback.conftest import installed, pip

pytestmark = pytest.mark.slow

BEFORE = {"zipp": "3.23.0", "tabulate": "0.8.10", "six": "1.17.0"}


def _save(python: str, path: Path) -> Path:
    assert cli.run(["save", "--python", python, "--no-frameworks", "-o", str(path)]) == ExitCode.OK
    return path


def test_save_change_diff_rollback_apply_and_diff_again(
    venv_python: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pip(venv_python, "install", *(f"{name}=={version}" for name, version in BEFORE.items()))
    before = _save(venv_python, tmp_path / "before.yaml")

    pip(venv_python, "install", "zipp==4.1.0", "tabulate==0.10.0")
    pip(venv_python, "uninstall", "--yes", "six")
    after = _save(venv_python, tmp_path / "after.yaml")
    capsys.readouterr()

    assert cli.run(["diff", str(before), str(after), "--json"]) == ExitCode.FINDINGS
    changes = {
        c["path"]: (c["kind"], c["old"], c["new"]) for c in json.loads(capsys.readouterr().out)["changes"]
    }
    assert changes == {
        "packages[zipp]": ("changed", "3.23.0", "4.1.0"),
        "packages[tabulate]": ("changed", "0.8.10", "0.10.0"),
        "packages[six]": ("removed", "1.17.0", None),
    }

    lines: list[str] = []
    result = apply(store.load(before), venv_python, label="before.yaml", on_line=lines.append)
    assert result.ok, result
    assert result.removed == ()
    assert sorted(result.installed) == ["six==1.17.0", "tabulate==0.8.10", "zipp==3.23.0"]
    assert any("Successfully installed" in line for line in lines)  # pip's own output, streamed
    assert {name: installed(venv_python)[name] for name in BEFORE} == BEFORE

    again = _save(venv_python, tmp_path / "again.yaml")
    capsys.readouterr()
    assert cli.run(["diff", str(before), str(again)]) == ExitCode.OK
    assert capsys.readouterr().out.startswith("no differences: sha256:")


def test_cli_apply_removes_what_the_snapshot_lacks(
    venv_python: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pip(venv_python, "install", *(f"{name}=={version}" for name, version in BEFORE.items()))
    before = _save(venv_python, tmp_path / "before.yaml")
    pip(venv_python, "install", "mpmath==1.3.0", "zipp==4.1.0")
    capsys.readouterr()

    dry = ["rollback", str(before), "--apply", "--python", venv_python, "--dry-run"]
    assert cli.run(dry) == ExitCode.OK
    planned = capsys.readouterr().out.splitlines()
    assert [line.split()[4] for line in planned] == ["install", "uninstall"]  # install first
    assert planned[1].endswith("-- mpmath")
    assert installed(venv_python)["mpmath"] == "1.3.0"  # the dry run changed nothing
    assert cli.run(["rollback", str(before), "--apply", "--python", venv_python, "--yes"]) == ExitCode.OK
    captured = capsys.readouterr()
    assert (
        captured.out.strip()
        == f"restored: the packages of {venv_python} match before.yaml (removed 1, installed 1)"
    )
    assert "Successfully uninstalled mpmath" in captured.err
    now = installed(venv_python)
    assert "mpmath" not in now
    assert now["zipp"] == "3.23.0"
    assert "pip" in now  # installer tooling is never removed
