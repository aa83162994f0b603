"""Rollback plans: exact pins in install order, PyTorch indexes, manual steps, and the three formats."""

from __future__ import annotations

import dataclasses
import os
import shlex
import stat
import subprocess
from pathlib import Path

import msgspec
import pytest
import yaml
from packaging.requirements import Requirement

from envsnap.render.rollback import conda_environment, requirements_txt, shell_script
from envsnap.rollback.plan import PYTORCH_INDEX, plan
from envsnap.snapshot.model import Package, PackageSource, Snapshot
from tests.fakes.diff_snapshots import A10G, BASE_PACKAGES, make, nvidia, with_nvidia


def _with_packages(snapshot: Snapshot, *extra: Package) -> Snapshot:
    return msgspec.structs.replace(snapshot, packages=(*(snapshot.packages or ()), *extra))


def _pins(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(("#", "--"))]


def test_every_distribution_is_pinned_exactly_dependencies_first() -> None:
    text = requirements_txt(plan(make()))
    pins = _pins(text)
    assert sorted(pins) == sorted(f"{name}=={version}" for name, version, _ in BASE_PACKAGES)
    position = {Requirement(line).name: i for i, line in enumerate(pins)}
    for dependency in ("filelock", "typing_extensions", "sympy", "networkx", "Jinja2", "fsspec"):
        assert position[dependency] < position["torch"], dependency
    assert position["mpmath"] < position["sympy"]
    assert position["MarkupSafe"] < position["Jinja2"]


def test_every_pin_line_is_a_valid_requirement() -> None:
    vcs = Package(
        name="flash-attn",
        version="2.6.3",
        source=PackageSource(
            kind="vcs",
            url="https://github.com/Dao-AILab/flash-attention",
            vcs="git",
            commit_id="bdf733be55f0b323a8cf7cc6745a81c3f43cd7f0",
        ),
    )
    wheel = Package(
        name="triton",
        version="3.0.0",
        source=PackageSource(
            kind="url",
            url="https://download.pytorch.org/whl/triton-3.0.0-1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
        ),
    )
    text = requirements_txt(plan(_with_packages(make(), vcs, wheel)))
    for line in _pins(text):
        Requirement(line)  # raises if pip could not read it either
    assert (
        "flash-attn @ git+https://github.com/Dao-AILab/flash-attention@bdf733be55f0b323a8cf7cc6745a81c3f43cd7f0"
        in text
    )
    assert "triton @ https://download.pytorch.org/whl/triton-3.0.0-1-cp311" in text


@pytest.mark.parametrize(
    ("torch", "index"),
    [("2.4.1+cu121", "cu121"), ("2.5.1+rocm6.2", "rocm6.2"), ("2.13.0+cpu", "cpu"), ("2.7.0+xpu", "xpu")],
)
def test_local_version_tags_bring_their_pytorch_index(torch: str, index: str) -> None:
    lines = requirements_txt(plan(make(torch=torch))).splitlines()
    assert f"--extra-index-url {PYTORCH_INDEX}{index}" in lines
    assert f"torch=={torch}" in lines


def test_no_pytorch_index_without_a_local_tag() -> None:
    assert "--extra-index-url" not in requirements_txt(plan(make(torch="2.4.1", torch_cuda="12.1")))


def test_what_pip_cannot_restore_becomes_manual_steps() -> None:
    editable = Package(
        name="trainer",
        version="0.3.0",
        source=PackageSource(kind="editable", url="file:///home/alice/src/trainer"),
    )
    local = Package(
        name="mylib", version="1.0", source=PackageSource(kind="file", url="file:///tmp/mylib-1.0.whl")
    )
    insecure = Package(
        name="old", version="0.1", source=PackageSource(kind="url", url="http://mirror/old-0.1.tar.gz")
    )
    text = requirements_txt(plan(_with_packages(make(), editable, local, insecure)))
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert any(
        "trainer 0.3.0: editable install from file:///home/alice/src/trainer" in line for line in comments
    )
    assert any("mylib 1.0: installed from file:///tmp/mylib-1.0.whl" in line for line in comments)
    assert any("old 0.1: installed from http://mirror/old-0.1.tar.gz (http URLs" in line for line in comments)
    assert {Requirement(line).name for line in _pins(text)}.isdisjoint({"trainer", "mylib", "old"})


def test_system_layers_are_manual_steps_with_what_is_installed_now() -> None:
    wanted = make()  # A100 host, driver 535.54.03, CUDA toolkit 12.1.105
    live = with_nvidia(make(), driver_version=nvidia(A10G).driver_version)  # 515.105.01 now
    steps = {step.what: step.text for step in plan(wanted, live=live).system}
    assert steps["NVIDIA driver"] == "install NVIDIA driver 535.54.03; currently 515.105.01"
    assert steps["CUDA toolkit"] == "CUDA toolkit 12.1.105: already installed"
    offline = {step.what: step.text for step in plan(wanted).system}
    assert offline["NVIDIA driver"] == "install NVIDIA driver 535.54.03"
    assert offline["Python"] == "install Python 3.11.7"
    no_gpu = msgspec.structs.replace(live, accelerators=None)
    assert {s.what: s.text for s in plan(wanted, live=no_gpu).system}["NVIDIA driver"].endswith(
        "; currently none"
    )
    assert "#   - install NVIDIA driver 535.54.03; currently 515.105.01" in requirements_txt(
        plan(wanted, live=live)
    )


def test_conda_environment_splits_conda_and_pip_installs() -> None:
    base = make()
    assert base.python is not None
    assert base.packages is not None
    conda_python = msgspec.structs.replace(base.python, env_kind="conda", env_name="train")
    packages = tuple(
        msgspec.structs.replace(p, installer="conda") if p.name in ("torch", "sympy", "mpmath") else p
        for p in base.packages
    )
    text = conda_environment(plan(msgspec.structs.replace(base, python=conda_python, packages=packages)))
    document = yaml.safe_load(text)
    assert document["name"] == "train"
    conda = [d for d in document["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in document["dependencies"] if isinstance(d, dict))
    assert conda[0] == "python=3.11.7"
    assert {"pytorch=2.4.1", "sympy=1.14.0", "mpmath=1.3.0", "pip"} <= set(conda)
    assert "filelock==4.3.1" in pip
    assert f"--extra-index-url {PYTORCH_INDEX}cu121" not in pip  # torch comes from conda here
    assert not any(line.startswith(("torch", "sympy")) for line in pip)


def test_conda_environment_of_a_venv_puts_everything_under_pip() -> None:
    document = yaml.safe_load(conda_environment(plan(make())))
    assert document["name"] == "envsnap-restore"
    pip = next(d["pip"] for d in document["dependencies"] if isinstance(d, dict))
    assert "torch==2.4.1+cu121" in pip
    assert f"--extra-index-url {PYTORCH_INDEX}cu121" in pip


def test_shell_script_runs_pip_with_exactly_the_pins(tmp_path: Path) -> None:
    """Run the generated script with a stand-in interpreter that records its arguments."""
    script = tmp_path / "restore.sh"
    script.write_text(shell_script(plan(make())))
    recorder = tmp_path / "python"
    recorder.write_text(f'#!/bin/sh\nfor arg in "$@"; do printf "%s\\n" "$arg"; done > {tmp_path}/argv\n')
    recorder.chmod(recorder.stat().st_mode | stat.S_IXUSR)
    done = subprocess.run(
        ["sh", str(script)],
        env={**os.environ, "PYTHON": str(recorder)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    argv = (tmp_path / "argv").read_text().splitlines()
    assert argv[:5] == ["-m", "pip", "install", "--no-deps", "--no-input"]
    assert argv[5:8] == ["--extra-index-url", f"{PYTORCH_INDEX}cu121", "--"]
    assert sorted(argv[8:]) == sorted(f"{name}=={version}" for name, version, _ in BASE_PACKAGES)
    assert "installing 9 pinned distributions" in done.stderr


def test_requirement_cycles_are_broken_by_name() -> None:
    """Some real pairs require each other (e.g. an extra-less cycle after a packaging mistake)."""
    rows = (("alpha", "1.0", ("beta>=1",)), ("beta", "1.0", ("alpha>=1",)), ("gamma", "1.0", ("beta",)))
    pins = _pins(requirements_txt(plan(make(rows=rows))))
    assert pins == ["alpha==1.0", "beta==1.0", "gamma==1.0"]


def _run_script(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "restore.sh"
    script.write_text(text)
    recorder = tmp_path / "python"
    recorder.write_text("#!/bin/sh\nexit 0\n")
    recorder.chmod(recorder.stat().st_mode | stat.S_IXUSR)
    return subprocess.run(
        ["sh", str(script)],
        env={**os.environ, "PYTHON": str(recorder)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("path", ["snaps/known good.yaml", "$(touch pwned).yaml", "it's.yaml"])
def test_the_scripts_closing_hint_names_the_snapshot_file(tmp_path: Path, path: str) -> None:
    restore = dataclasses.replace(plan(make()), snapshot_path=path)
    done = _run_script(tmp_path, shell_script(restore))
    assert done.returncode == 0, done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.endswith(f'envsnap diff "{path}" after.yaml --only packages')  # literal, never run
    assert "SNAPSHOT" not in last
    assert not (tmp_path / "pwned").exists()
    assert f"#   envsnap rollback {shlex.quote(path)} --apply --python PATH" in shell_script(restore)


def test_rollback_script_from_the_cli_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from envsnap import cli
    from envsnap.snapshot import store

    monkeypatch.chdir(tmp_path)
    (tmp_path / "snaps").mkdir()
    store.save(make(), tmp_path / "snaps" / "good.yaml")
    assert cli.run(["rollback", "snaps/good.yaml", "--format", "script", "--no-live"]) == 0
    assert "SNAPSHOT=snaps/good.yaml\n" in capsys.readouterr().out


def test_conda_environment_pins_pip_itself() -> None:
    rows = (*BASE_PACKAGES, ("pip", "24.2", ()))
    document = yaml.safe_load(conda_environment(plan(make(rows=rows))))
    conda = [d for d in document["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in document["dependencies"] if isinstance(d, dict))
    assert "pip=24.2" in conda
    assert "pip" not in conda
    assert not any(line.startswith("pip==") for line in pip)
