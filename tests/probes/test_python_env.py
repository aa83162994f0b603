"""python/packages probe against real interpreters and real pip installs; no fakes.

The reference for "which packages are installed" is ``python -m pip list --format=json`` run by
the same interpreter. A second virtual environment (built once per session) holds one package from
the index and one each of the PEP 610 direct-URL kinds: editable, git, local wheel and local folder.
"""

from __future__ import annotations

import ast
import json
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from envsnap import cli
from envsnap.probes.base import ProbeContext
from envsnap.probes.python import _target_env
from envsnap.probes.python import probe as python_env
from envsnap.snapshot import store
from envsnap.snapshot.model import Package, PythonEnv

BASE_PYTHON = os.path.realpath(sys.executable)
"""The interpreter binary behind envsnap's venv: a different environment from envsnap's own."""

SIX = "1.17.0"


@dataclass(frozen=True)
class SecondVenv:
    """A venv with six from the index plus four local projects installed four different ways."""

    python: Path
    prefix: Path
    projects: Path
    git_commit: str
    wheel: Path


def _run(argv: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _project(root: Path, dist: str, package: str) -> Path:
    folder = root / dist
    (folder / package).mkdir(parents=True)
    (folder / package / "__init__.py").write_text("VALUE = 1\n")
    (folder / "pyproject.toml").write_text(
        "[build-system]\n"
        'requires = ["setuptools>=70.1"]\n'
        'build-backend = "setuptools.build_meta"\n\n'
        "[project]\n"
        f'name = "{dist}"\n'
        'version = "0.1.0"\n'
        'dependencies = ["six>=1.16"]\n\n'
        "[tool.setuptools]\n"
        f'packages = ["{package}"]\n'
    )
    return folder


@pytest.fixture(scope="session")
def second_venv(tmp_path_factory: pytest.TempPathFactory) -> SecondVenv:
    root = tmp_path_factory.mktemp("second-venv")
    prefix = root / "venv"
    _run([sys.executable, "-m", "venv", str(prefix)])
    python = prefix / "bin" / "python"
    pip = [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    # setuptools >= 70.1 builds wheels without the "wheel" package, so no build isolation is needed.
    _run([*pip, "install", f"six=={SIX}", "setuptools>=70.1"])
    projects = root / "projects"
    editable = _project(projects, "es-editable", "es_edit")
    _run([*pip, "install", "--no-deps", "--no-build-isolation", "-e", str(editable)])

    repo = _project(projects, "es-vcs", "es_vcs")
    git = ["git", "-c", "user.name=envsnap tests", "-c", "user.email=tests@envsnap.invalid"]
    _run([*git, "init", "-q", "-b", "main"], cwd=repo)
    _run([*git, "add", "."], cwd=repo)
    _run([*git, "commit", "-q", "-m", "initial"], cwd=repo)
    commit = _run(["git", "rev-parse", "HEAD"], cwd=repo).strip()
    _run([*pip, "install", "--no-deps", "--no-build-isolation", f"git+{repo.as_uri()}@main"])

    dist = projects / "dist"
    wheel_project = _project(projects, "es-wheel", "es_wheel")
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(wheel_project)])
    (wheel,) = dist.glob("*.whl")
    folder_project = _project(projects, "es-folder", "es_folder")
    _run([*pip, "install", "--no-deps", "--no-build-isolation", str(wheel), str(folder_project)])
    return SecondVenv(python, prefix, projects, commit, wheel)


def _pip_list(python: str | Path, env: dict[str, str] | None = None) -> set[tuple[str, str]]:
    argv = [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"]
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env, timeout=120)
    return {(canonicalize_name(item["name"]), item["version"]) for item in json.loads(done.stdout)}


def _names(packages: tuple[Package, ...] | None) -> set[tuple[str, str]]:
    assert packages is not None
    return {(canonicalize_name(p.name), p.version) for p in packages}


def _by_name(packages: tuple[Package, ...] | None) -> dict[str, Package]:
    assert packages is not None
    return {canonicalize_name(p.name): p for p in packages}


def _script(folder: Path, name: str, body: str, executable: bool = True) -> str:
    path = folder / name
    path.write_text(body)
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


# ---------------------------------------------------------------------------- envsnap's own interpreter


def test_own_venv_matches_pip_list() -> None:
    reading = python_env.probe(ProbeContext())
    assert reading.python.status == "ok"
    assert _names(reading.packages) == _pip_list(sys.executable)


def test_own_venv_interpreter_facts() -> None:
    python = python_env.probe(ProbeContext()).python
    assert python.version == ".".join(map(str, sys.version_info[:3]))
    assert python.executable == sys.executable
    assert python.prefix == sys.prefix
    assert python.base_prefix == sys.base_prefix
    assert python.env_kind == ("venv" if sys.prefix != sys.base_prefix else "system")
    assert python.site_packages
    assert all(Path(p).is_dir() for p in python.site_packages)
    assert python.shadowed == ()


def test_own_packages_carry_requirements_installer_and_import_names() -> None:
    packages = _by_name(python_env.probe(ProbeContext()).packages)
    envsnap = packages["envsnap"]
    assert envsnap.requires is not None
    assert any(r.startswith("msgspec") for r in envsnap.requires)
    assert envsnap.top_level is not None
    assert "envsnap" in envsnap.top_level
    assert packages["pyyaml"].top_level == ("_yaml", "yaml")  # from top_level.txt
    assert packages["msgspec"].source is not None
    assert packages["msgspec"].source.kind == "index"
    assert packages["pip"].installer == "pip"


def test_in_process_and_subprocess_readings_are_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    in_process = python_env.probe(ProbeContext())
    monkeypatch.setattr(ProbeContext, "is_own_interpreter", property(lambda self: False))
    in_child = python_env.probe(ProbeContext())
    assert in_child == in_process


def test_probing_twice_gives_identical_readings() -> None:
    assert python_env.probe(ProbeContext()) == python_env.probe(ProbeContext())


# ---------------------------------------------------------------------------- another interpreter


# What the standard library itself reports, parsing whole METADATA files with the email parser;
# the first copy of a name on sys.path wins, as for the import system. (The base interpreter may
# have no pip, so this, not pip list, is the reference there.)
_STDLIB_LISTING = """
import importlib.metadata, json, re
seen = {}
for dist in importlib.metadata.distributions():
    name = dist.metadata["Name"]
    if name:
        seen.setdefault(re.sub(r"[-_.]+", "-", name).lower(), dist.version)
print(json.dumps(sorted(seen.items())))
"""


def test_base_interpreter_is_probed_in_its_own_process(tmp_path: Path) -> None:
    reading = python_env.probe(ProbeContext(python=BASE_PYTHON))
    assert reading.python.status == "ok", reading.python.reason
    assert reading.python.prefix == sys.base_prefix
    assert reading.python.env_kind != "venv"
    listing = _run([BASE_PYTHON, "-c", _STDLIB_LISTING], cwd=tmp_path)
    assert _names(reading.packages) == {(name, version) for name, version in json.loads(listing)}


@pytest.mark.slow
def test_second_venv_matches_its_pip_list(second_venv: SecondVenv) -> None:
    reading = python_env.probe(ProbeContext(python=str(second_venv.python)))
    assert reading.python.status == "ok", reading.python.reason
    assert _names(reading.packages) == _pip_list(second_venv.python)
    assert ("six", SIX) in _names(reading.packages)
    assert "msgspec" not in _by_name(reading.packages)  # envsnap's own packages must not leak in


@pytest.mark.slow
def test_second_venv_interpreter_facts(second_venv: SecondVenv) -> None:
    python = python_env.probe(ProbeContext(python=str(second_venv.python))).python
    assert python.prefix == str(second_venv.prefix)
    assert python.env_kind == "venv"
    assert python.env_name == "venv"
    assert python.site_packages is not None
    assert all(p.startswith(str(second_venv.prefix)) for p in python.site_packages)


@pytest.mark.slow
def test_second_venv_sources_follow_pep_610(second_venv: SecondVenv) -> None:
    packages = _by_name(python_env.probe(ProbeContext(python=str(second_venv.python))).packages)
    projects = second_venv.projects

    six = packages["six"]
    assert six.source is not None
    assert six.source.kind == "index"
    assert (six.installer, six.top_level) == ("pip", ("six",))

    editable = packages["es-editable"]
    assert editable.source is not None
    assert (editable.source.kind, editable.source.url) == ("editable", (projects / "es-editable").as_uri())
    assert editable.top_level == ("es_edit",)
    assert editable.requires == ("six>=1.16",)

    vcs = packages["es-vcs"].source
    assert vcs is not None
    assert (vcs.kind, vcs.vcs, vcs.url) == ("vcs", "git", (projects / "es-vcs").as_uri())
    assert (vcs.commit_id, vcs.requested_revision) == (second_venv.git_commit, "main")

    wheel = packages["es-wheel"].source
    assert wheel is not None
    assert (wheel.kind, wheel.url) == ("file", second_venv.wheel.as_uri())

    folder = packages["es-folder"].source
    assert folder is not None
    assert (folder.kind, folder.url) == ("file", (projects / "es-folder").as_uri())


@pytest.mark.slow
def test_cli_save_with_python_reports_that_environment(
    second_venv: SecondVenv, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.run(["save", "--python", str(second_venv.python), "-o", "-", "--no-frameworks"])
    out = capsys.readouterr().out
    assert code == 0
    snapshot = store.loads(out)
    assert snapshot.python is not None
    assert snapshot.python.prefix == str(second_venv.prefix)
    names = {canonicalize_name(p.name) for p in snapshot.packages or ()}
    assert {"six", "es-editable", "es-vcs", "es-wheel", "es-folder"} <= names
    assert "msgspec" not in names


# ---------------------------------------------------------------------------- shadowed copies


def _dist_info(site_dir: Path, name: str, version: str) -> None:
    folder = site_dir / f"{name}-{version}.dist-info"
    folder.mkdir(parents=True)
    (folder / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nlong text\n"
    )
    (folder / "RECORD").write_text(f"{name}/__init__.py,,\n{folder.name}/METADATA,,\n")


def test_second_copy_later_on_sys_path_is_reported_as_shadowed(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _dist_info(first, "shadowpkg", "2.0")
    _dist_info(second, "shadowpkg", "1.0")
    _dist_info(second, "Shadow_Pkg_Two", "3.0")
    _dist_info(first, "shadow-pkg-two", "4.0")  # same PEP 503 name, spelled differently
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(first), str(second)])}

    reading = python_env.probe(ProbeContext(python=BASE_PYTHON, environ=environ))
    packages = _by_name(reading.packages)
    assert packages["shadowpkg"].version == "2.0"
    assert packages["shadow-pkg-two"].version == "4.0"
    assert packages["shadowpkg"].top_level == ("shadowpkg",)
    shadowed = {(s.name, s.version, s.location) for s in reading.python.shadowed or ()}
    assert shadowed == {("shadowpkg", "1.0", str(second)), ("Shadow_Pkg_Two", "3.0", str(second))}
    # pip agrees on which copy is the live one.
    assert {("shadowpkg", "2.0"), ("shadow-pkg-two", "4.0")} <= _pip_list(sys.executable, environ)


# ---------------------------------------------------------------------------- failures are data


def test_missing_interpreter_fails_with_reason(tmp_path: Path) -> None:
    reading = python_env.probe(ProbeContext(python=str(tmp_path / "nope" / "python")))
    assert reading == python_env.failed(f"interpreter not found: {tmp_path / 'nope' / 'python'}")


def test_non_executable_interpreter_fails_with_reason(tmp_path: Path) -> None:
    path = _script(tmp_path, "python", "#!/bin/sh\n", executable=False)
    reading = python_env.probe(ProbeContext(python=path))
    assert reading.python == PythonEnv(status="failed", reason=f"interpreter is not executable: {path}")
    assert reading.packages is None


def test_hanging_interpreter_times_out(tmp_path: Path) -> None:
    path = _script(tmp_path, "python", "#!/bin/sh\nexec sleep 30\n")
    reading = python_env.probe(ProbeContext(python=path, timeout_s=0.5))
    assert reading.python.status == "failed"
    assert reading.python.reason == f"interpreter {path} timed out after 0.5 s"


def test_interpreter_that_cannot_start_fails_with_its_error(tmp_path: Path) -> None:
    # A real start-up crash: no standard library where PYTHONHOME says.
    environ = {**os.environ, "PYTHONHOME": str(tmp_path / "missing")}
    reading = python_env.probe(ProbeContext(python=BASE_PYTHON, environ=environ))
    assert reading.python.status == "failed"
    assert reading.python.reason == (
        f"interpreter {BASE_PYTHON} exited with status 1: ModuleNotFoundError: No module named 'encodings'"
    )


def test_interpreter_killed_by_a_signal_says_so(tmp_path: Path) -> None:
    # A real segfault inside the target, triggered from its sitecustomize.
    (tmp_path / "sitecustomize.py").write_text("import ctypes\nctypes.string_at(0)\n")
    environ = {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONFAULTHANDLER": ""}
    reading = python_env.probe(ProbeContext(python=BASE_PYTHON, environ=environ))
    assert reading.python.status == "failed"
    assert reading.python.reason is not None
    assert reading.python.reason.startswith(f"interpreter {BASE_PYTHON} was killed by SIGSEGV")


def test_garbage_output_fails_with_what_was_printed(tmp_path: Path) -> None:
    path = _script(tmp_path, "python", "#!/bin/sh\ncat > /dev/null\necho 'Python 2.7.18'\n")
    reading = python_env.probe(ProbeContext(python=path))
    assert reading.python == PythonEnv(
        status="failed",
        reason=f"interpreter {path} printed no environment report (last line: 'Python 2.7.18')",
    )


def test_report_with_wrong_shape_fails_instead_of_crashing(tmp_path: Path) -> None:
    path = _script(
        tmp_path,
        "python",
        '#!/bin/sh\ncat > /dev/null\necho \'{"python": {"version": 3}, "packages": []}\'\n',
    )
    reading = python_env.probe(ProbeContext(python=path))
    assert reading.python.status == "failed"
    assert reading.python.reason is not None
    assert reading.python.reason.startswith(
        f"unreadable environment report from {path}: Expected `str | null`"
    )


# ---------------------------------------------------------------------------- the target script


def test_target_script_is_stdlib_only_and_python38_syntax() -> None:
    source = Path(_target_env.__file__).read_text()
    tree = ast.parse(source, feature_version=(3, 8))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)


def test_target_script_runs_as_a_plain_script_in_an_isolated_interpreter(tmp_path: Path) -> None:
    done = subprocess.run(
        [BASE_PYTHON, "-I", _target_env.__file__],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        timeout=60,
    )
    data = json.loads(done.stdout.strip().splitlines()[-1])
    assert data["python"]["prefix"] == sys.base_prefix
    assert isinstance(data["packages"], list)


# ---------------------------------------------------------------------------- unusable --python


def _pretending(tmp_path: Path, version: tuple[int, int]) -> str:
    """A real Python that reports an older ``sys.version_info`` to whatever ``-c`` code it runs."""
    pretend = f"import sys; sys.version_info = {(*version, 0, 'final', 0)!r}; exec(sys.argv[1])"
    body = f'#!/bin/sh\nexec {BASE_PYTHON} -c "{pretend}" "$2"\n'
    return _script(tmp_path, f"python{version[0]}.{version[1]}", body)


@pytest.mark.parametrize("version", [(2, 7), (3, 6)])
def test_an_old_python_is_named_with_its_version(tmp_path: Path, version: tuple[int, int]) -> None:
    problem = python_env.interpreter_problem(_pretending(tmp_path, version))
    assert problem == (
        f"Python {version[0]}.{version[1]}; envsnap needs Python >= 3.8 in the target interpreter"
    )


@pytest.mark.parametrize("program", ["/bin/true", "/bin/sh"])
def test_a_program_that_is_not_python_is_named_so(program: str) -> None:
    problem = python_env.interpreter_problem(program)
    assert problem is not None
    assert problem.startswith("not a Python interpreter: `-c` with a version query exited with status ")


def test_a_usable_python_has_no_problem() -> None:
    assert python_env.interpreter_problem(BASE_PYTHON) is None
    assert python_env.interpreter_problem(sys.executable) is None


@pytest.mark.parametrize("program", ["/bin/true", "/bin/sh", "old"])
def test_save_with_an_unusable_python_is_bad_input(
    tmp_path: Path, program: str, capsys: pytest.CaptureFixture[str]
) -> None:
    python = _pretending(tmp_path, (3, 6)) if program == "old" else program
    out = tmp_path / "s.yaml"
    assert cli.run(["save", "--python", python, "-o", str(out), "--no-frameworks"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith(f"envsnap: error: --python {python}: ")
    assert ("Python 3.6;" in line) if program == "old" else ("not a Python interpreter" in line)
    assert not out.exists()
