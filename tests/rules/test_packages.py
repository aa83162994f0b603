"""duplicate-distributions and broken-requirements (checked against the real ``pip check``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from envsnap.probes.base import ProbeContext
from envsnap.probes.python import _target_env
from envsnap.probes.python import probe as python_env
from envsnap.rules import packages
from envsnap.snapshot.model import Frameworks, OnnxruntimeInfo, PythonEnv, ShadowedDistribution
from tests.rules.conftest import TORCH_CU128_REQUIRES, package, snapshot


def test_onnxruntime_and_onnxruntime_gpu_share_one_package() -> None:
    snap = snapshot(
        packages=(
            package("onnxruntime", "1.22.0", top_level=["onnxruntime"]),
            package("onnxruntime-gpu", "1.22.0", top_level=["onnxruntime"]),
            package("numpy", "2.2.6", top_level=["numpy"]),
        )
    )
    (found,) = packages.duplicate_distributions(snap)
    assert found.id == "duplicate-distributions"
    assert found.severity == "warning"
    assert "2 distributions install the 'onnxruntime' package" in found.title
    assert (
        found.fix == "`pip uninstall -y onnxruntime onnxruntime-gpu` then `pip install onnxruntime-gpu` "
        "(only one of them)."
    )
    assert found.source == "https://github.com/microsoft/onnxruntime/issues/26996"


def test_onnxruntime_probe_reports_several_distributions() -> None:
    ort = OnnxruntimeInfo(
        status="ok", version="1.22.0", distributions=("onnxruntime==1.22.0", "onnxruntime-gpu==1.22.0")
    )
    (found,) = packages.duplicate_distributions(snapshot(frameworks=Frameworks(onnxruntime=ort)))
    assert found.evidence[0].path == "frameworks.onnxruntime.distributions"
    assert "`pip install onnxruntime-gpu`" in found.fix
    single = OnnxruntimeInfo(status="ok", version="1.22.0", distributions=("onnxruntime-gpu==1.22.0",))
    assert list(packages.duplicate_distributions(snapshot(frameworks=Frameworks(onnxruntime=single)))) == []


def test_opencv_flavours_without_top_level_data() -> None:
    # A pip-freeze import: names and versions only, so the known-conflict table is used.
    snap = snapshot(
        packages=(package("opencv-python", "4.10.0.84"), package("opencv-python-headless", "4.10.0.84"))
    )
    (found,) = packages.duplicate_distributions(snap)
    assert "'cv2'" in found.title
    assert "opencv-python-headless" in found.fix


def test_namespace_packages_are_not_duplicates() -> None:
    snap = snapshot(
        packages=(
            package("nvidia-cublas-cu12", "12.8.4.1", top_level=["nvidia"]),
            package("nvidia-cudnn-cu12", "9.10.2.21", top_level=["nvidia"]),
            package("jax-cuda12-plugin", "0.6.0", top_level=["jax_plugins"]),
            package("jax-cuda12-pjrt", "0.6.0", top_level=["jax_plugins"]),
        )
    )
    assert list(packages.duplicate_distributions(snap)) == []


def _dist(
    site: Path, name: str, files: list[str], *, top_level: str | None, declared: str | None = None
) -> Path:
    """A dist-info folder in ``site`` whose RECORD lists ``files`` (which are created too)."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "RECORD").write_text("".join(f"{f},,\n" for f in [*files, f"{info.name}/RECORD"]))
    if top_level is not None:
        (info / "top_level.txt").write_text(top_level + "\n")
    if declared is not None:
        (info / "namespace_packages.txt").write_text(declared + "\n")
    for f in files:
        (site / f).parent.mkdir(parents=True, exist_ok=True)
        (site / f).write_text("")
    return info


def test_pep420_namespace_portions_are_not_duplicates(tmp_path: Path) -> None:
    # lazr.restfulclient + lazr.uri: top_level.txt says "lazr" for both, and lazr/ has no __init__.py.
    client = _dist(tmp_path, "lazr.restfulclient", ["lazr/restfulclient/__init__.py"], top_level="lazr")
    uri = _dist(tmp_path, "lazr.uri", ["lazr/uri/__init__.py", "lazr/uri/_uri.py"], top_level="lazr")
    assert _target_env._top_level(str(client)) == ["lazr.restfulclient"]
    assert _target_env._top_level(str(uri)) == ["lazr.uri"]
    snap = snapshot(
        packages=(
            package("lazr.restfulclient", "0.14.6", top_level=_target_env._top_level(str(client))),
            package("lazr.uri", "1.0.6", top_level=_target_env._top_level(str(uri))),
        )
    )
    assert list(packages.duplicate_distributions(snap)) == []


def test_a_real_clash_inside_a_namespace_is_still_found(tmp_path: Path) -> None:
    # Two distributions installing the same portion of a namespace do overwrite each other.
    one = _dist(tmp_path, "acme-widgets", ["acme/widgets/__init__.py"], top_level=None)
    two = _dist(tmp_path, "acme-widgets-fork", ["acme/widgets/core.py"], top_level=None)
    snap = snapshot(
        packages=(
            package("acme-widgets", "1.0", top_level=_target_env._top_level(str(one))),
            package("acme-widgets-fork", "2.0", top_level=_target_env._top_level(str(two))),
        )
    )
    (found,) = packages.duplicate_distributions(snap)
    assert "'acme.widgets'" in found.title


def test_pkg_resources_namespace_declared_in_metadata(tmp_path: Path) -> None:
    # Old-style namespace: an __init__.py exists, but namespace_packages.txt declares it shared.
    info = _dist(
        tmp_path, "zc.lockfile", ["zc/__init__.py", "zc/lockfile/__init__.py"], top_level="zc", declared="zc"
    )
    assert _target_env._top_level(str(info)) == ["zc.lockfile"]


def test_an_ordinary_package_is_unchanged(tmp_path: Path) -> None:
    info = _dist(tmp_path, "six", ["six.py"], top_level="six")
    assert _target_env._top_level(str(info)) == ["six"]


def test_torch_from_pip_and_conda_in_one_env() -> None:
    snap = snapshot(
        packages=(
            package("torch", "2.5.1", installer="conda", top_level=["torch"]),
            package("torch", "2.7.1+cu126", installer="pip", top_level=["torch"]),
        )
    )
    (found,) = packages.duplicate_distributions(snap)
    assert "torch is installed 2 times (2.5.1 via conda, 2.7.1+cu126 via pip)" in found.title


def test_shadowed_copy_is_reported() -> None:
    shadowed = ShadowedDistribution(
        name="numpy", version="1.26.4", location="/home/u/.local/lib/python3.11/site-packages"
    )
    snap = snapshot(
        python=PythonEnv(status="ok", version="3.11.7", shadowed=(shadowed,)),
        packages=(package("numpy", "2.2.6", top_level=["numpy"]),),
    )
    (found,) = packages.duplicate_distributions(snap)
    assert found.severity == "warning"
    assert "2.2.6 is the one imported" in found.title
    same = snapshot(
        python=PythonEnv(
            status="ok",
            version="3.11.7",
            shadowed=(ShadowedDistribution(name="numpy", version="2.2.6", location="/x"),),
        ),
        packages=(package("numpy", "2.2.6"),),
    )
    assert [f.severity for f in packages.duplicate_distributions(same)] == ["info"]


def test_broken_requirements_missing_and_conflicting() -> None:
    snap = snapshot(
        packages=(
            package(
                "transformers",
                "4.52.4",
                ["huggingface-hub<1.0,>=0.30.0", "tokenizers<0.22,>=0.21", "torch>=2.1; extra == 'torch'"],
            ),
            package("huggingface-hub", "0.29.3"),
        )
    )
    (found,) = packages.broken_requirements(snap)
    assert found.id == "broken-requirements"
    assert found.severity == "warning"
    assert "2 unmet requirements" in found.title
    assert (
        "transformers 4.52.4 has requirement huggingface-hub<1.0,>=0.30.0, "
        "but you have huggingface-hub 0.29.3" in found.title
    )
    assert "'tokenizers<0.22,>=0.21'" in found.fix


def test_broken_requirements_leaves_torch_pins_to_the_dedicated_rules() -> None:
    snap = snapshot(
        packages=(
            package("torch", "2.8.0+cu128", TORCH_CU128_REQUIRES),
            package("torchvision", "0.22.0", ["torch==2.7.0"]),
        )
    )
    assert list(packages.broken_requirements(snap)) == []


def test_satisfied_requirements_are_silent() -> None:
    snap = snapshot(
        packages=(
            package("requests", "2.32.3", ["urllib3<3,>=1.21.1", "PySocks!=1.5.7,>=1.5.6; extra == 'socks'"]),
            package("urllib3", "2.2.3"),
        )
    )
    assert list(packages.broken_requirements(snap)) == []


# ---------------------------------------------------------------------------- against pip check

_DISTS = {
    "alpha": ("1.0", ["beta>=2.0", "Eta_Pkg"]),
    "beta": ("1.5", []),
    "gamma": ("0.1", ["delta", "beta; extra == 'x'", "zeta>=1; python_version < '3.0'"]),
    "eta-pkg": ("1.0", ["beta>=1.0,<2"]),
    "theta": ("2.0", ["beta==1.5.*", "alpha[extra]>=1.1"]),
}


def _write_dist(site: Path, name: str, version: str, requires: list[str]) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        *(f"Requires-Dist: {r}" for r in requires),
    ]
    (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")


@pytest.mark.slow
def test_same_answer_as_pip_check(tmp_path: Path) -> None:
    """A tiny venv with known breakage: the rule (on the real probe's snapshot) and pip agree."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    site = next((venv / "lib").glob("python3*/site-packages"))
    for name, (version, requires) in _DISTS.items():
        _write_dist(site, name, version, requires)
    checked = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 1, checked.stdout + checked.stderr
    pip_pairs = set()
    for line in checked.stdout.splitlines():
        match = re.match(r"^(\S+) \S+ (?:has requirement|requires) ([A-Za-z0-9._-]+)", line)
        if match:
            pip_pairs.add((canonicalize_name(match.group(1)), canonicalize_name(match.group(2))))
    reading = python_env.probe(ProbeContext(python=str(python), frameworks=False))
    snap = snapshot(python=reading.python, packages=reading.packages)
    (found,) = packages.broken_requirements(snap)
    ours = set()
    for evidence in found.evidence:
        owner = canonicalize_name(evidence.path.removeprefix("packages[").split("]")[0])
        ours.add((owner, canonicalize_name(re.split(r"[\s\[<>=!~;(]", evidence.value, maxsplit=1)[0])))
    assert ours == pip_pairs == {("alpha", "beta"), ("gamma", "delta"), ("theta", "alpha")}
