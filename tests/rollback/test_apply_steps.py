"""``--apply`` step by step, with pip replaced by a recorder (the real pip run is in test_apply_venv.py)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from envsnap.errors import BadInput
from envsnap.rollback.apply import apply
from envsnap.rollback.plan import PYTORCH_INDEX
from envsnap.snapshot.model import Package, PackageSource
from tests.fakes.diff_snapshots import make, packages
from tests.fakes.fake_pip import FakePip, fake_interpreter


@pytest.fixture
def python(tmp_path: Path) -> str:
    """An executable file standing in for the target interpreter (pip itself is faked)."""
    return fake_interpreter(tmp_path)


def test_removes_extras_installs_differences_and_verifies(python: str) -> None:
    wanted = make()
    assert wanted.packages is not None
    current = tuple(
        msgspec.structs.replace(p, version="4.3.2") if p.name == "filelock" else p
        for p in wanted.packages
        if p.name != "mpmath"
    ) + packages(("six", "1.17.0", ()), ("pip", "26.3", ()), ("setuptools", "84.2.1", ()))
    pip = FakePip(current)
    lines: list[str] = []
    result = apply(wanted, python, runner=pip.run, read_packages=pip.read, on_line=lines.append)
    install, uninstall = pip.commands  # install first: a failed install must not leave a gutted env
    assert uninstall == [python, "-I", "-m", "pip", "uninstall", "--yes", "--no-input", "--", "six"]
    assert install[:8] == [
        python,
        "-I",
        "-m",
        "pip",
        "install",
        "--no-deps",
        "--no-input",
        "--disable-pip-version-check",
    ]
    assert install[8:] == [
        "--extra-index-url",
        f"{PYTORCH_INDEX}cu121",
        "--",
        "filelock==4.3.1",
        "mpmath==1.3.0",
    ]
    assert result.ok
    assert result.removed == ("six",)
    assert result.installed == ("filelock==4.3.1", "mpmath==1.3.0")
    assert result.kept == ("pip", "setuptools")
    assert "  Successfully uninstalled six" in lines


def test_nothing_to_do_runs_no_pip(python: str) -> None:
    wanted = make()
    pip = FakePip(wanted.packages or ())
    result = apply(wanted, python, runner=pip.run, read_packages=pip.read)
    assert pip.commands == []
    assert result.ok


def test_a_failing_pip_and_what_still_differs_are_reported(python: str) -> None:
    wanted = make()
    current = tuple(p for p in wanted.packages or () if p.name != "mpmath")
    pip = FakePip(current, fail=True)
    result = apply(wanted, python, runner=pip.run, read_packages=pip.read)
    assert result.pip_failed
    assert not result.ok
    assert [(c.path, c.kind) for c in result.remaining] == [("packages[mpmath]", "removed")]


def test_editable_installs_are_left_to_a_person(python: str) -> None:
    editable = Package(
        name="trainer", version="0.3.0", source=PackageSource(kind="editable", url="file:///src/t")
    )
    wanted = msgspec.structs.replace(make(), packages=(*(make().packages or ()), editable))
    pip = FakePip(make().packages or ())
    result = apply(wanted, python, runner=pip.run, read_packages=pip.read)
    assert pip.commands == []  # nothing pip could do: the editable install is not pinned
    assert [m.name for m in result.manual] == ["trainer"]
    assert [(c.path, c.kind) for c in result.remaining] == [("packages[trainer]", "removed")]


def test_the_interpreter_must_exist(tmp_path: Path) -> None:
    pip = FakePip(())
    with pytest.raises(BadInput, match="not an executable file"):
        apply(make(), str(tmp_path / "nope" / "python"), runner=pip.run, read_packages=pip.read)
    assert pip.commands == []
