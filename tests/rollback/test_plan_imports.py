"""Rollback plans of imported and hand-edited snapshots: unknown layers, versionless direct URLs, usage."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import msgspec
import pytest
from packaging.requirements import Requirement

from envsnap import cli
from envsnap.errors import BadInput, ExitCode
from envsnap.render.rollback import conda_environment, requirements_txt, shell_script
from envsnap.rollback.apply import apply
from envsnap.rollback.plan import plan
from envsnap.snapshot import store
from envsnap.snapshot.fingerprint import fingerprint
from envsnap.snapshot.model import Package, PackageSource, Snapshot
from tests.fakes.diff_snapshots import (
    FLASH_ATTN_COMMIT,
    PIP_FREEZE,
    PIP_FREEZE_DIRECT,
    TRITON_WHEEL,
    imported,
    make,
    nvidia_import,
)
from tests.fakes.fake_pip import FakePip, fake_interpreter

FLASH_ATTN_GIT = f"git+https://github.com/Dao-AILab/flash-attention@{FLASH_ATTN_COMMIT}"


def _pins(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith(("#", "--"))]


# ---------------------------------------------------------------------------- unknown package layer


def test_a_plan_without_a_package_list_says_so_and_pins_nothing(tmp_path: Path) -> None:
    restore = plan(nvidia_import(), label="gpus.yaml")
    assert restore.packages_unknown == "it has no packages section; it was imported from nvidia-smi-xml"
    text = requirements_txt(restore)
    assert "# The package layer is unknown in this snapshot: it has no packages section" in text
    assert _pins(text) == []
    assert "#   - install NVIDIA driver 535.54.03" in text  # what the import does know is still there
    assert "The package layer is unknown" in conda_environment(restore)
    script = tmp_path / "restore.sh"
    script.write_text(shell_script(restore))
    done = subprocess.run(
        ["sh", str(script)],
        env={**os.environ, "PYTHON": "/bin/false"},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1
    assert "does not know its Python packages" in done.stderr


def test_cli_plan_of_an_nvidia_smi_import_warns_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    smi = store.save(nvidia_import(), tmp_path / "gpus.yaml")
    assert cli.run(["rollback", str(smi), "--no-live"]) == ExitCode.OK
    captured = capsys.readouterr()
    assert "The package layer is unknown" in captured.out
    assert captured.err.startswith("envsnap: warning: gpus.yaml: the package layer is unknown")


# ---------------------------------------------------------------------------- versionless pip freeze lines


def test_pip_freeze_direct_urls_are_restored_by_url_or_by_hand() -> None:
    frozen = imported("pip-freeze", PIP_FREEZE_DIRECT + f"flash-attn-nightly @ {FLASH_ATTN_GIT}\n")
    restore = plan(frozen, label="frozen.txt")
    text = requirements_txt(restore)
    pins = _pins(text)
    assert f"triton @ {TRITON_WHEEL}" in pins
    assert f"flash-attn-nightly @ {FLASH_ATTN_GIT}" in pins  # the commit once, not "@<commit>@<commit>"
    for line in pins:
        Requirement(line)
    assert [(m.name, m.version) for m in restore.manual] == [("flash_attn", "")]
    assert f"#   - flash_attn (version unknown): editable install from {FLASH_ATTN_GIT}: reinstall it" in text


def test_a_versionless_url_pin_already_installed_is_left_alone(tmp_path: Path) -> None:
    frozen = imported("pip-freeze", PIP_FREEZE + f"triton @ {TRITON_WHEEL}\n")
    installed = tuple(
        msgspec.structs.replace(p, version="3.0.0") if p.name == "triton" else p
        for p in frozen.packages or ()
    )
    pip = FakePip(installed)
    result = apply(frozen, fake_interpreter(tmp_path), runner=pip.run, read_packages=pip.read)
    assert pip.commands == []
    assert result.ok


@pytest.mark.parametrize(
    "package",
    [
        Package(name="six", version=""),  # from an index: a version is required
        Package(name="six", version="", source=PackageSource(kind="index")),
        Package(
            name="x", version="", source=PackageSource(kind="url", url="https://h/x.whl --trusted-host evil")
        ),
        Package(name="x", version="", source=PackageSource(kind="url", url="https://h/x\x9b31m.whl")),
        Package(name="x", version=" ", source=PackageSource(kind="url", url="https://h/x.whl")),
    ],
)
def test_hostile_input_is_still_refused(package: Package) -> None:
    base = make()
    with pytest.raises(BadInput, match="refusing to restore"):
        plan(msgspec.structs.replace(base, packages=(*(base.packages or ()), package)))


# ---------------------------------------------------------------------------- stored fingerprints


def test_the_plan_recomputes_the_fingerprint_so_it_cannot_inject_lines() -> None:
    forged: Snapshot = msgspec.structs.replace(
        make(), fingerprint="sha256:0\n--index-url http://evil.example/simple"
    )
    text = requirements_txt(plan(forged))
    assert not any(line.startswith("--index-url") for line in text.splitlines())
    assert f"({fingerprint(forged)})" in text.splitlines()[0]


# ---------------------------------------------------------------------------- Python step, usage errors


def test_a_live_plan_says_the_python_version_is_unknown_without_python() -> None:
    live_without_target = msgspec.structs.replace(make(), python=None)
    steps = {step.what: step.text for step in plan(make(), live=live_without_target).system}
    assert steps["Python"] == (
        "install Python 3.11.7; currently unknown (pass --python PATH to compare the target interpreter)"
    )
    assert {s.what: s.text for s in plan(make(), live=make()).system}[
        "Python"
    ] == "Python 3.11.7: already installed"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--apply", "--python", "/usr/bin/python3", "-o", "plan.txt"],
            "-o/--output and --format don't apply",
        ),
        (["--apply", "--python", "/usr/bin/python3", "--format", "requirements"], "--format don't apply"),
        (["--dry-run"], "--dry-run only goes with --apply"),
        (["--yes"], "--yes only goes with --apply"),
    ],
)
def test_options_of_the_other_mode_are_usage_errors(
    extra: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    good = store.save(make(), tmp_path / "good.yaml")
    assert cli.run(["rollback", str(good), "--no-live", *extra]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    assert not (tmp_path / "plan.txt").exists()
