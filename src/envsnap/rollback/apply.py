"""``envsnap rollback SNAPSHOT --apply --python PATH``: restore a Python environment, then prove it.

Steps, in this order, so that nothing runs unless everything checked out:

1. ``rollback.plan`` validates the whole snapshot (names, versions, URLs); a hostile one is
   refused with BadInput before any process starts. So is a snapshot that does not know its
   package layer (no ``packages`` section, or a python probe that failed): restoring "exactly
   its packages" would uninstall every distribution.
2. The target interpreter's packages are read (probes.python_env, the same probe as ``save``),
   and ``prepare`` works out the pip commands. ``--dry-run`` prints them and stops here; the
   CLI asks for confirmation (or ``--yes``) before going on.
3. ``execute`` runs them, **install first, then uninstall** (see below).
4. The package layer is read again and diffed against the snapshot (installer names aside: pip
   did the restoring). What still differs is reported, and the command exits 1 if anything does.

What is never uninstalled, even when the snapshot lacks it: pip, setuptools and wheel (the
restore itself runs on them), and, when the target is envsnap's own environment, envsnap and
every distribution it requires, transitively (markers evaluated in this interpreter, which is
the target's): removing them would pull the floor from under the command that is running.

Order. Pins that differ are installed with ``pip install --no-deps`` (the snapshot already lists
every distribution at an exact version, so letting the resolver add or upgrade anything could
only move away from it), and only when that succeeded are the extras uninstalled. A failed
install therefore leaves the environment with its extras, never gutted. The one conflict this
order invites: an extra that shares files with a distribution just installed (a renamed or
forked distribution installing the same import package, such as ``opencv-python`` and
``opencv-python-headless``); uninstalling it deletes the files it lists in its RECORD, which
now belong to the new one. So every pin whose import names (``top_level``) overlap a removed
distribution's is reinstalled (``--force-reinstall --no-deps``) after the uninstall.

pip runs as ``PATH -I -m pip`` (isolated: never from the current folder) with an argument list,
never through a shell, with ``--`` before the
requirements; its output streams line by line to a callback (the CLI prints it on stderr).
The runner is injectable so tests can prove that a refused snapshot never reaches pip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import msgspec
from packaging.markers import UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from envsnap._version import __version__
from envsnap.compare.diff import diff
from envsnap.compare.flatten import source_text
from envsnap.errors import BadInput
from envsnap.rollback.plan import ManualPackage, Pin, plan
from envsnap.snapshot.model import SCHEMA_VERSION, Change, Meta, Package, Snapshot
from envsnap.snapshot.redact import redact_snapshot

KEPT_TOOLING = frozenset({"pip", "setuptools", "wheel"})
"""Never uninstalled, even when the snapshot lacks them: the restore itself runs on them."""
SELF = "envsnap"
"""This tool's distribution: with its requirements, never uninstalled from its own environment."""

LineSink = Callable[[str], None]
Runner = Callable[[Sequence[str], LineSink], int]
PackageReader = Callable[[str], tuple[Package, ...]]


@dataclass(frozen=True)
class ApplyPlan:
    """What ``--apply`` will do in one target environment, worked out before anything runs."""

    interpreter: str
    install: tuple[Pin, ...]
    """Pins the target does not have (or has at another version or from another source)."""
    remove: tuple[str, ...]
    """Distributions the snapshot lacks, to uninstall after the install succeeded."""
    reinstall: tuple[Pin, ...]
    """Pins sharing import names with a removed distribution: reinstalled after the uninstall."""
    kept: tuple[str, ...]
    """Installer tooling present in the target but not in the snapshot, left in place."""
    protected: tuple[str, ...]
    """envsnap and its requirements, left in place because they run this restore."""
    manual: tuple[ManualPackage, ...]
    extra_index_urls: tuple[str, ...]

    def commands(self) -> tuple[tuple[str, ...], ...]:
        """The pip commands, in the order they run (all of them, if each one succeeds)."""
        pip = pip_argv(self.interpreter)
        commands: list[tuple[str, ...]] = []
        if self.install:
            commands.append(_install_argv(pip, self.install, self.extra_index_urls))
        if self.remove:
            commands.append((*pip, "uninstall", "--yes", "--no-input", "--", *self.remove))
        if self.reinstall:
            commands.append(
                _install_argv(pip, self.reinstall, self.extra_index_urls, extra=("--force-reinstall",))
            )
        return tuple(commands)


@dataclass(frozen=True)
class ApplyResult:
    """What ``--apply`` did and what still differs afterwards."""

    removed: tuple[str, ...]
    installed: tuple[str, ...]
    manual: tuple[ManualPackage, ...]
    kept: tuple[str, ...]
    """Installer tooling present in the target but not in the snapshot, left in place."""
    remaining: tuple[Change, ...]
    """Package-layer differences between the snapshot and the restored environment."""
    pip_failed: bool
    protected: tuple[str, ...] = ()
    """envsnap and its requirements, left in place because they ran this restore."""

    @property
    def ok(self) -> bool:
        """Whether the environment now matches the snapshot."""
        return not self.remaining and not self.pip_failed


def pip_argv(interpreter: str) -> tuple[str, ...]:
    """``INTERPRETER -I -m pip``: the target's own pip, never a ``pip/`` folder in the current directory.

    ``-I`` (isolated) keeps the current folder, ``PYTHON*`` variables and the user's site-packages
    off ``sys.path``: pip restores the interpreter's own environment, which is what is restored.
    """
    return (interpreter, "-I", "-m", "pip")


def run_streaming(argv: Sequence[str], on_line: LineSink) -> int:
    """Run a command without a shell, passing each output line (stdout and stderr) to ``on_line``."""
    with subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", bufsize=1
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            on_line(line.rstrip("\n"))
        return process.wait()


def probe_packages(python: str) -> tuple[Package, ...]:
    """The distributions installed in ``python``'s environment, as ``envsnap save --python`` sees them.

    Raises:
        BadInput: the interpreter cannot be probed.
    """
    from envsnap.probes.base import ProbeContext
    from envsnap.probes.python import probe as python_env

    reading = python_env.probe(ProbeContext(python=python, frameworks=False))
    if not reading.python.ok or reading.packages is None:
        why = reading.python.reason or "no package list"
        raise BadInput(f"--python {python}: cannot read its packages: {why}")
    return reading.packages


def resolve_interpreter(python: str) -> str:
    """An absolute path to an executable interpreter (``python3`` is looked up on PATH).

    Raises:
        BadInput: not found or not executable.
    """
    found = shutil.which(python) if os.sep not in python else python
    if found is None or not Path(found).is_file() or not os.access(found, os.X_OK):
        raise BadInput(f"--python {python}: not an executable file")
    return str(Path(found).absolute())


def is_own_environment(interpreter: str) -> bool:
    """Whether ``interpreter`` runs in the environment envsnap itself runs in (same ``sys.prefix``)."""
    from envsnap.probes.base import ProbeContext, run_command

    if ProbeContext(python=interpreter).is_own_interpreter:
        return True
    result = run_command([interpreter, "-I", "-c", "import sys; print(sys.prefix)"], timeout_s=20.0)
    if result.returncode != 0 or not result.stdout.strip():
        return False
    try:
        return os.path.samefile(result.stdout.strip().splitlines()[-1], sys.prefix)
    except OSError:
        return False


def prepare(
    snapshot: Snapshot,
    python: str,
    *,
    label: str = "snapshot",
    read_packages: PackageReader | None = None,
    own_environment: bool | None = None,
) -> ApplyPlan:
    """Validate the snapshot, read the target, and work out the pip commands (nothing runs).

    Args:
        snapshot: the environment to restore.
        python: the target interpreter.
        label: how to name the snapshot in messages.
        read_packages: lists the target's distributions (default: ``probe_packages``).
        own_environment: whether the target is envsnap's own environment (default: find out).

    Raises:
        BadInput: the snapshot is unsafe to restore or does not know its packages, or the
            interpreter can't be used.
    """
    restore = plan(snapshot, label=label)  # validates everything before anything runs
    if restore.packages_unknown is not None:
        raise BadInput(
            f"{label}: refusing to apply: the snapshot does not know its package layer "
            f"({restore.packages_unknown}); restoring it would uninstall every distribution"
        )
    read_packages = read_packages or probe_packages
    interpreter = resolve_interpreter(python)
    wanted: dict[str, Package] = {canonicalize_name(p.name): p for p in snapshot.packages or ()}
    pins: dict[str, Pin] = {canonicalize_name(pin.name): pin for pin in restore.pins}
    current: dict[str, Package] = {canonicalize_name(p.name): p for p in read_packages(interpreter)}
    own = is_own_environment(interpreter) if own_environment is None else own_environment
    guarded = requirement_closure(SELF, current) if own else frozenset()
    extras = sorted(key for key in current if key not in wanted)
    remove = tuple(current[key].name for key in extras if key not in KEPT_TOOLING and key not in guarded)
    kept = tuple(current[key].name for key in extras if key in KEPT_TOOLING)
    protected = tuple(current[key].name for key in extras if key in guarded and key not in KEPT_TOOLING)
    install = tuple(pin for key, pin in pins.items() if not _same(current.get(key), wanted[key]))
    removed_keys: set[str] = {canonicalize_name(name) for name in remove}
    return ApplyPlan(
        interpreter=interpreter,
        install=install,
        remove=remove,
        reinstall=_sharing_files(removed_keys, current, wanted, pins),
        kept=kept,
        protected=protected,
        manual=restore.manual,
        extra_index_urls=restore.extra_index_urls,
    )


def execute(
    prepared: ApplyPlan,
    snapshot: Snapshot,
    *,
    runner: Runner | None = None,
    on_line: LineSink = lambda line: None,
    read_packages: PackageReader | None = None,
) -> ApplyResult:
    """Run a prepared plan (install, then uninstall, then reinstall overlaps) and verify the result."""
    runner = runner or run_streaming
    read_packages = read_packages or probe_packages
    pip = pip_argv(prepared.interpreter)
    failed = False
    removed: tuple[str, ...] = ()
    if prepared.install:
        on_line(f"envsnap: installing {len(prepared.install)} pinned distribution(s) with --no-deps")
        failed = runner(_install_argv(pip, prepared.install, prepared.extra_index_urls), on_line) != 0
    if prepared.remove and failed:
        on_line(f"envsnap: the install failed; not removing the {len(prepared.remove)} extra distribution(s)")
    elif prepared.remove:
        names = ", ".join(prepared.remove)
        on_line(f"envsnap: removing {len(prepared.remove)} distribution(s) the snapshot lacks: {names}")
        argv = (*pip, "uninstall", "--yes", "--no-input", "--", *prepared.remove)
        failed = runner(argv, on_line) != 0
        removed = prepared.remove
        if prepared.reinstall:
            names = ", ".join(pin.name for pin in prepared.reinstall)
            on_line(f"envsnap: reinstalling {names}: they share import names with what was removed")
            argv = _install_argv(
                pip, prepared.reinstall, prepared.extra_index_urls, extra=("--force-reinstall",)
            )
            failed |= runner(argv, on_line) != 0
    after = read_packages(prepared.interpreter)
    ignore = frozenset((*prepared.kept, *prepared.protected))
    remaining = package_differences(snapshot.packages or (), after, ignore=ignore)
    installed = tuple(pin.requirement for pin in prepared.install)
    return ApplyResult(
        removed, installed, prepared.manual, prepared.kept, remaining, failed, prepared.protected
    )


def apply(
    snapshot: Snapshot,
    python: str,
    *,
    label: str = "snapshot",
    runner: Runner | None = None,
    on_line: LineSink = lambda line: None,
    read_packages: PackageReader | None = None,
    own_environment: bool | None = None,
) -> ApplyResult:
    """Make ``python``'s environment hold exactly the snapshot's distributions, then verify.

    ``prepare`` then ``execute``, without asking: the Python API's caller has decided already.

    Args:
        snapshot: the environment to restore.
        python: the target interpreter (its pip does the work).
        label: how to name the snapshot in messages.
        runner: runs one pip command (default: ``run_streaming``).
        on_line: receives pip's output, line by line.
        read_packages: lists the target's distributions (default: ``probe_packages``).
        own_environment: whether the target is envsnap's own environment (default: find out).

    Raises:
        BadInput: the snapshot is unsafe to restore, or the interpreter can't be used.
    """
    prepared = prepare(
        snapshot, python, label=label, read_packages=read_packages, own_environment=own_environment
    )
    return execute(prepared, snapshot, runner=runner, on_line=on_line, read_packages=read_packages)


def requirement_closure(root: str, installed: Mapping[str, Package]) -> frozenset[str]:
    """``root`` and every installed distribution it requires, transitively (normalized names).

    Requirements come from the installed distributions' Requires-Dist; markers are evaluated in
    this interpreter (callers use it for envsnap's own environment), with the extras asked for.
    When ``root`` is not in ``installed``, its requirements are read from this interpreter's
    metadata instead.
    """
    seen: set[tuple[str, frozenset[str]]] = set()
    todo: list[tuple[str, frozenset[str]]] = [(canonicalize_name(root), frozenset())]
    while todo:
        item = todo.pop()
        if item in seen:
            continue
        seen.add(item)
        key, extras = item
        package = installed.get(key)
        lines = package.requires if package is not None else _own_requires(key)
        for requirement in _needed(lines or (), extras):
            todo.append((canonicalize_name(requirement.name), frozenset(requirement.extras)))
    return frozenset(key for key, _ in seen)


def _own_requires(key: str) -> tuple[str, ...]:
    try:
        return tuple(metadata.requires(key) or ())
    except metadata.PackageNotFoundError:
        return ()


def _needed(lines: Iterable[str], extras: frozenset[str]) -> list[Requirement]:
    """The requirements that apply here, for the base install and the given extras."""
    needed = []
    for line in lines:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        marker = requirement.marker
        try:
            applies = marker is None or any(marker.evaluate({"extra": e}) for e in ("", *extras))
        except UndefinedEnvironmentName:
            applies = True  # when unsure, protect
        if applies:
            needed.append(requirement)
    return needed


def _sharing_files(
    removed: set[str], current: Mapping[str, Package], wanted: Mapping[str, Package], pins: Mapping[str, Pin]
) -> tuple[Pin, ...]:
    """Pins whose import names overlap those of a distribution about to be uninstalled."""
    doomed: set[str] = set()
    for key in removed:
        doomed.update(current[key].top_level or ())
    if not doomed:
        return ()
    sharing = []
    for key, pin in pins.items():
        installed = current.get(key)
        names = set(wanted[key].top_level or ()) | set((installed.top_level if installed else None) or ())
        if names & doomed:
            sharing.append(pin)
    return tuple(sharing)


def _install_argv(
    pip: Sequence[str], pins: Sequence[Pin], indexes: Sequence[str], *, extra: Sequence[str] = ()
) -> tuple[str, ...]:
    argv = [*pip, "install", "--no-deps", *extra, "--no-input", "--disable-pip-version-check"]
    for url in indexes:
        argv += ["--extra-index-url", url]
    return (*argv, "--", *(pin.requirement for pin in pins))


def _same(installed: Package | None, wanted: Package) -> bool:
    if installed is None:
        return False
    if wanted.version and installed.version != wanted.version:
        return False  # an empty wanted version (an imported name @ url line): the source decides
    return _source(installed) == _source(wanted)


def _source(package: Package) -> str:
    return "index" if package.source is None else source_text(msgspec.to_builtins(package.source))


def package_differences(
    wanted: Sequence[Package], found: Sequence[Package], *, ignore: frozenset[str] = frozenset()
) -> tuple[Change, ...]:
    """Package-layer changes from ``wanted`` to ``found``, installer names aside."""
    skip = frozenset(canonicalize_name(name) for name in ignore)
    return diff(_packages_only(wanted, frozenset()), _packages_only(found, skip), only=("packages",))


def _packages_only(packages: Sequence[Package], skip: frozenset[str]) -> Snapshot:
    kept = tuple(
        msgspec.structs.replace(p, installer=None) for p in packages if canonicalize_name(p.name) not in skip
    )
    meta = Meta(envsnap_version=__version__, captured_at="")
    return redact_snapshot(Snapshot(schema=SCHEMA_VERSION, meta=meta, packages=kept))
