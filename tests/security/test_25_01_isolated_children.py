"""25.1. Every child interpreter runs isolated: nothing in the current folder is imported.

``python -c CODE`` and ``python -m MODULE`` put the current folder first on ``sys.path``, so
``cd untrusted_checkout && envsnap audit --python python3`` would import the checkout's ``json.py``
and ``envsnap rollback --apply`` would run its ``pip/`` folder. Each call site runs here from a
folder that plants every module it could import (``json``, ``runpy``, ``pip``, ``envsnap``...);
each planted module writes a marker file, so a test fails if any of them ran.
"""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

from envsnap.fleet.collect import RemoteCommand
from envsnap.probes.base import ProbeContext
from envsnap.probes.extensions import probe as extensions
from envsnap.probes.frameworks import cache as framework_cache
from envsnap.probes.python import probe as python_env
from envsnap.rollback.apply import ApplyPlan
from envsnap.rollback.plan import Pin

PLANTED_MODULES = ("json", "runpy", "site", "sysconfig", "encodings_extra", "importlib_metadata")
PLANTED_PACKAGES = ("pip", "envsnap", "torch")


@pytest.fixture(scope="module")
def other_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A second environment (a venv of this interpreter): not envsnap's own, so it is asked."""
    folder = tmp_path_factory.mktemp("target") / "venv"
    venv.EnvBuilder(with_pip=False, system_site_packages=True).create(folder)
    return str(folder / "bin" / "python")


@pytest.fixture
def hostile_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current folder is an untrusted checkout: every module it holds writes ``marker``."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    marker = tmp_path / "marker"
    payload = f"open({str(marker)!r}, 'a').write(__name__ + '\\n')\n"
    for name in PLANTED_MODULES:
        (checkout / f"{name}.py").write_text(payload)
    for name in PLANTED_PACKAGES:
        (checkout / name).mkdir()
        (checkout / name / "__init__.py").write_text(payload)
        (checkout / name / "__main__.py").write_text(payload)
    monkeypatch.chdir(checkout)
    return marker


def _ran(marker: Path) -> str:
    return marker.read_text() if marker.exists() else ""


def test_the_framework_cache_key_query_imports_nothing_from_the_current_folder(
    other_python: str, hostile_cwd: Path
) -> None:
    ctx = ProbeContext(python=other_python)
    assert not ctx.is_own_interpreter
    key = framework_cache.cache_key(ctx, dict(ctx.environ))
    assert key is not None
    assert _ran(hostile_cwd) == ""


def test_the_cache_key_does_not_depend_on_the_current_folder(
    other_python: str, hostile_cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = ProbeContext(python=other_python)
    first = framework_cache.cache_key(ctx, dict(ctx.environ))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.pth").write_text("")
    monkeypatch.chdir(elsewhere)
    assert framework_cache.cache_key(ctx, dict(ctx.environ)) == first


def test_the_interpreter_version_query_imports_nothing_from_the_current_folder(
    other_python: str, hostile_cwd: Path
) -> None:
    assert python_env.interpreter_problem(other_python) is None
    assert _ran(hostile_cwd) == ""


def test_the_python_probe_imports_nothing_from_the_current_folder(
    other_python: str, hostile_cwd: Path
) -> None:
    reading = python_env.probe(ProbeContext(python=other_python, frameworks=False))
    assert reading.python.ok, reading.python.reason
    assert _ran(hostile_cwd) == ""


def test_the_site_query_imports_nothing_from_the_current_folder(other_python: str, hostile_cwd: Path) -> None:
    assert isinstance(extensions.site_directories(ProbeContext(python=other_python)), list)
    assert _ran(hostile_cwd) == ""


def test_the_framework_children_import_nothing_from_the_current_folder(
    other_python: str, hostile_cwd: Path
) -> None:
    from envsnap.probes.frameworks import probe as frameworks

    result = frameworks.probe(ProbeContext(python=other_python, cache=False, timeout_s=60))
    assert result.torch is not None
    assert _ran(hostile_cwd) == ""


def test_rollback_runs_the_targets_pip_not_a_pip_folder_in_the_current_folder(
    hostile_cwd: Path,
) -> None:
    prepared = ApplyPlan(
        interpreter=sys.executable,
        install=(Pin("six", "1.17.0", "six==1.17.0", "index", "pip"),),
        remove=(),
        reinstall=(),
        kept=(),
        protected=(),
        manual=(),
        extra_index_urls=(),
    )
    (command,) = prepared.commands()
    prefix = list(command[: command.index("install")])
    done = subprocess.run([*prefix, "--version"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("pip "), done.stdout
    assert _ran(hostile_cwd) == ""


def test_fleet_runs_the_nodes_envsnap_not_an_envsnap_folder_in_the_current_folder(
    hostile_cwd: Path,
) -> None:
    # srun starts each task in the submitting folder: the node's cwd is the checkout.
    argv = RemoteCommand(python=sys.executable).argv()
    head = argv[: argv.index("save")]
    done = subprocess.run([*head, "--version"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("envsnap, version"), done.stdout
    assert _ran(hostile_cwd) == ""
