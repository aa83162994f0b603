"""``envsnap rollback SNAPSHOT --apply --python PATH``: restore a Python environment, then prove it.

Steps, in this order, so that nothing runs unless everything checked out:

1. ``rollback.plan`` validates the whole snapshot (names, versions, URLs); a hostile one is
   refused with BadInput before any process starts.
2. The target interpreter's packages are read (probes.python_env, the same probe as ``save``).
3. Distributions the snapshot lacks are uninstalled (``pip uninstall --yes``), except pip,
   setuptools and wheel, which the install step itself needs; pins that differ are installed
   with ``pip install --no-deps``: the snapshot already lists every distribution at an exact
   version, so letting the resolver add or upgrade anything could only move away from it.
4. The package layer is read again and diffed against the snapshot (installer names aside: pip
   did the restoring). What still differs is reported, and the command exits 1 if anything does.

pip runs as ``PATH -m pip`` with an argument list, never through a shell, with ``--`` before the
requirements; its output streams line by line to a callback (the CLI prints it on stderr).
The runner is injectable so tests can prove that a refused snapshot never reaches pip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec
from packaging.utils import canonicalize_name

from envsnap import __version__
from envsnap.diff import diff
from envsnap.errors import BadInput
from envsnap.flatten import source_text
from envsnap.model import SCHEMA_VERSION, Change, Meta, Package, Snapshot
from envsnap.redact import redact_snapshot
from envsnap.rollback import ManualPackage, Pin, plan

KEPT_TOOLING = frozenset({"pip", "setuptools", "wheel"})
"""Never uninstalled, even when the snapshot lacks them: the restore itself runs on them."""

LineSink = Callable[[str], None]
Runner = Callable[[Sequence[str], LineSink], int]
PackageReader = Callable[[str], tuple[Package, ...]]


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

    @property
    def ok(self) -> bool:
        """Whether the environment now matches the snapshot."""
        return not self.remaining and not self.pip_failed


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
    from envsnap.probes import python_env
    from envsnap.probes.base import ProbeContext

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


def apply(
    snapshot: Snapshot,
    python: str,
    *,
    label: str = "snapshot",
    runner: Runner | None = None,
    on_line: LineSink = lambda line: None,
    read_packages: PackageReader | None = None,
) -> ApplyResult:
    """Make ``python``'s environment hold exactly the snapshot's distributions, then verify.

    Args:
        snapshot: the environment to restore.
        python: the target interpreter (its pip does the work).
        label: how to name the snapshot in messages.
        runner: runs one pip command (default: ``run_streaming``).
        on_line: receives pip's output, line by line.
        read_packages: lists the target's distributions (default: ``probe_packages``).

    Raises:
        BadInput: the snapshot is unsafe to restore, or the interpreter can't be used.
    """
    restore = plan(snapshot, label=label)  # validates everything before anything runs
    runner = runner or run_streaming
    read_packages = read_packages or probe_packages
    interpreter = resolve_interpreter(python)
    wanted = {canonicalize_name(p.name): p for p in snapshot.packages or ()}
    pins = {canonicalize_name(pin.name): pin for pin in restore.pins}
    current = {canonicalize_name(p.name): p for p in read_packages(interpreter)}
    remove = sorted(p.name for key, p in current.items() if key not in wanted and key not in KEPT_TOOLING)
    kept = sorted(p.name for key, p in current.items() if key not in wanted and key in KEPT_TOOLING)
    install = [pin for key, pin in pins.items() if not _same(current.get(key), wanted[key])]
    pip = [interpreter, "-m", "pip"]
    failed = False
    if remove:
        on_line(f"envsnap: removing {len(remove)} distribution(s) the snapshot lacks: {', '.join(remove)}")
        failed |= runner([*pip, "uninstall", "--yes", "--no-input", "--", *remove], on_line) != 0
    if install:
        on_line(f"envsnap: installing {len(install)} pinned distribution(s) with --no-deps")
        failed |= runner(_install_argv(pip, install, restore.extra_index_urls), on_line) != 0
    after = read_packages(interpreter)
    remaining = package_differences(snapshot.packages or (), after, ignore=frozenset(kept))
    installed = tuple(pin.requirement for pin in install)
    return ApplyResult(tuple(remove), installed, restore.manual, tuple(kept), remaining, failed)


def _install_argv(pip: list[str], pins: list[Pin], indexes: Sequence[str]) -> list[str]:
    argv = [*pip, "install", "--no-deps", "--no-input", "--disable-pip-version-check"]
    for url in indexes:
        argv += ["--extra-index-url", url]
    return [*argv, "--", *(pin.requirement for pin in pins)]


def _same(installed: Package | None, wanted: Package) -> bool:
    if installed is None or installed.version != wanted.version:
        return False
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
