"""``--apply`` never guts an environment: unknown package layers, envsnap's own env, order, consent."""

from __future__ import annotations

import io
import shlex
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import msgspec
import pytest
from packaging.utils import canonicalize_name

from envsnap import cli
from envsnap.errors import BadInput, ExitCode
from envsnap.rollback.apply import (
    LineSink,
    apply,
    is_own_environment,
    prepare,
    probe_packages,
    requirement_closure,
)
from envsnap.snapshot import store
from envsnap.snapshot.model import Package, PythonEnv, Snapshot
from tests.fakes.diff_snapshots import make, nvidia_import, packages
from tests.fakes.fake_pip import FakePip, fake_interpreter

SIX = packages(("six", "1.17.0", ()))
"""A distribution the snapshot lacks."""


@pytest.fixture
def python(tmp_path: Path) -> str:
    return fake_interpreter(tmp_path)


def _nothing_may_run(calls: list[Sequence[str]]) -> tuple[object, object]:
    def runner(argv: Sequence[str], on_line: LineSink) -> int:
        calls.append(argv)
        return 0

    def read(python: str) -> tuple[Package, ...]:
        calls.append(["read", python])
        return ()

    return runner, read


# ---------------------------------------------------------------------------- unknown package layer


UNKNOWN_PACKAGES: dict[str, Snapshot] = {
    "nvidia-smi import": nvidia_import(),
    "python probe failed": msgspec.structs.replace(
        make(),
        python=PythonEnv(status="failed", reason="interpreter /opt/env/bin/python timed out after 20 s"),
        packages=(),
    ),
    "python probe failed, no packages": msgspec.structs.replace(
        make(),
        python=PythonEnv(status="failed", reason="interpreter not found: /opt/env/bin/python"),
        packages=None,
    ),
}


@pytest.mark.parametrize("case", sorted(UNKNOWN_PACKAGES))
def test_apply_refuses_a_snapshot_that_does_not_know_its_packages(case: str, python: str) -> None:
    calls: list[Sequence[str]] = []
    runner, read = _nothing_may_run(calls)
    with pytest.raises(BadInput, match=r"does not know its package layer.*uninstall every distribution"):
        apply(UNKNOWN_PACKAGES[case], python, runner=runner, read_packages=read)  # type: ignore[arg-type]
    assert calls == []


def test_cli_apply_on_an_nvidia_smi_import_exits_2(
    tmp_path: Path, python: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> int:
        raise AssertionError("nothing may run")

    monkeypatch.setattr("envsnap.rollback.apply.run_streaming", never)
    monkeypatch.setattr("envsnap.rollback.apply.probe_packages", never)
    smi = store.save(nvidia_import(), tmp_path / "gpus.yaml")
    assert cli.run(["rollback", str(smi), "--apply", "--python", python, "--yes"]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("envsnap: error: gpus.yaml: refusing to apply")
    assert "imported from nvidia-smi-xml" in err


# ---------------------------------------------------------------------------- envsnap's own environment


def _installed(name: str) -> Package:
    """A distribution of this very environment, with its real Requires-Dist."""
    dist = metadata.distribution(name)
    return Package(name=dist.metadata["Name"], version=dist.version, requires=tuple(dist.requires or ()))


def test_requirement_closure_follows_requires_dist_and_skips_unrequested_extras() -> None:
    rich = _installed("rich")
    assert any("extra ==" in line for line in rich.requires or ())  # rich[jupyter] exists
    names = ("rich", "markdown-it-py", "mdurl", "pygments")
    installed: dict[str, Package] = {canonicalize_name(p.name): p for p in map(_installed, names)}
    assert requirement_closure("rich", installed) == {"rich", "markdown-it-py", "mdurl", "pygments"}


def test_envsnaps_own_environment_keeps_envsnap_and_everything_it_needs() -> None:
    """Restoring a snapshot of 9 packages into envsnap's own venv: no uninstalling the floor we stand on."""
    assert is_own_environment(sys.executable)
    prepared = prepare(make(), sys.executable, read_packages=probe_packages)
    protected = {canonicalize_name(name) for name in prepared.protected}
    removed = {canonicalize_name(name) for name in prepared.remove}
    needed = {
        "envsnap",
        "click",
        "msgspec",
        "rich",
        "textual",
        "markdown-it-py",
        "mdurl",
        "pygments",
        "pyyaml",
    }
    needed |= {"packaging", "psutil", "pyelftools", "nvidia-ml-py"}
    assert needed <= protected
    assert not protected & removed
    assert {"pytest", "ruff", "mypy"} <= removed  # development tools envsnap does not run on
    not_own = prepare(make(), sys.executable, read_packages=probe_packages, own_environment=False)
    assert "envsnap" in {canonicalize_name(name) for name in not_own.remove}


def test_another_environment_is_not_envsnaps_own(python: str) -> None:
    assert not is_own_environment(python)


# ---------------------------------------------------------------------------- order


def test_a_failed_install_leaves_the_extras_in_place(python: str) -> None:
    wanted = make()
    current = tuple(p for p in wanted.packages or () if p.name != "mpmath") + SIX
    pip = FakePip(current, fail="install")
    lines: list[str] = []
    result = apply(wanted, python, runner=pip.run, read_packages=pip.read, on_line=lines.append)
    assert [command[4] for command in pip.commands] == ["install"]  # no uninstall after a failure
    assert "six" in pip.installed
    assert result.pip_failed
    assert result.removed == ()
    assert "envsnap: the install failed; not removing the 1 extra distribution(s)" in lines


def test_a_pin_sharing_import_names_with_a_removed_distribution_is_reinstalled(python: str) -> None:
    """opencv-python and -headless both install cv2: uninstalling one deletes the other's files."""
    base = make()
    headless = Package(name="opencv-python-headless", version="4.10.0.84", top_level=("cv2",))
    desktop = Package(name="opencv-python", version="4.10.0.84", top_level=("cv2",))
    wanted = msgspec.structs.replace(base, packages=(*(base.packages or ()), headless))
    pip = FakePip((*(base.packages or ()), desktop))
    result = apply(wanted, python, runner=pip.run, read_packages=pip.read)
    install, uninstall, reinstall = pip.commands
    assert install[-2:] == ["--", "opencv-python-headless==4.10.0.84"]
    assert uninstall[-2:] == ["--", "opencv-python"]
    assert reinstall[4:7] == ["install", "--no-deps", "--force-reinstall"]
    assert reinstall[-2:] == ["--", "opencv-python-headless==4.10.0.84"]
    assert result.ok


# ---------------------------------------------------------------------------- dry run and consent


@pytest.fixture
def fake_target(tmp_path: Path, python: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, FakePip]:
    """A snapshot file, a target that has six extra and lacks mpmath, and its fake pip."""
    wanted = make()
    pip = FakePip(tuple(p for p in wanted.packages or () if p.name != "mpmath") + SIX)
    monkeypatch.setattr("envsnap.rollback.apply.run_streaming", pip.run)
    monkeypatch.setattr("envsnap.rollback.apply.probe_packages", pip.read)
    return store.save(wanted, tmp_path / "good.yaml"), python, pip


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_dry_run_prints_exactly_the_pip_commands_and_runs_none(
    fake_target: tuple[Path, str, FakePip], capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot, python, pip = fake_target
    args = ["rollback", str(snapshot), "--apply", "--python", python, "--dry-run"]
    assert cli.run(args) == ExitCode.OK
    assert pip.commands == []
    pip_cmd = [python, "-I", "-m", "pip"]
    install = [*pip_cmd, "install", "--no-deps", "--no-input", "--disable-pip-version-check"]
    install += ["--extra-index-url", "https://download.pytorch.org/whl/cu121", "--", "mpmath==1.3.0"]
    uninstall = [*pip_cmd, "uninstall", "--yes", "--no-input", "--", "six"]
    assert capsys.readouterr().out.splitlines() == [shlex.join(install), shlex.join(uninstall)]


def test_off_a_terminal_apply_needs_yes(
    fake_target: tuple[Path, str, FakePip],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snapshot, python, pip = fake_target
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert cli.run(["rollback", str(snapshot), "--apply", "--python", python]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "install 1, remove 1 distribution(s)" in err
    assert "--yes" in err
    assert pip.commands == []
    assert cli.run(["rollback", str(snapshot), "--apply", "--python", python, "--yes"]) == ExitCode.OK
    assert [command[4] for command in pip.commands] == ["install", "uninstall"]


@pytest.mark.parametrize(
    ("answer", "code", "ran"), [("n\n", ExitCode.FINDINGS, False), ("y\n", ExitCode.OK, True)]
)
def test_on_a_terminal_apply_asks_first(
    answer: str,
    code: ExitCode,
    ran: bool,
    fake_target: tuple[Path, str, FakePip],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    snapshot, python, pip = fake_target
    monkeypatch.setattr(sys, "stdin", _Terminal(answer))
    assert cli.run(["rollback", str(snapshot), "--apply", "--python", python]) == code
    err = capsys.readouterr().err
    assert f"restore good.yaml into {python}: install 1, remove 1 distribution(s)?" in err
    assert "would install: mpmath==1.3.0" in err  # the prompt names what changes, not just counts
    assert "would remove: six" in err
    assert err.index("would install") < err.index("would remove") < err.index("distribution(s)?")
    assert bool(pip.commands) is ran
    assert ("not confirmed; nothing was changed" in err) is not ran
