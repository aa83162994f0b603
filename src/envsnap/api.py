"""The Python API behind the CLI: ``envsnap.collect()``, ``load()``, ``save()``, ``diff()``, ``check()``.

Thin on purpose: each function wires the layers (probes -> model -> rules/diff -> store) the same
way the CLI does, so scripts and the command line can't drift apart.
"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from envsnap.errors import BadInput
from envsnap.snapshot.model import Change, Finding, Snapshot

if TYPE_CHECKING:
    from envsnap.collector import ProgressCallback

DEFAULT_SNAPSHOT_DIR = Path("snapshots")


def collect(
    *,
    python: str | None = None,
    frameworks: bool = True,
    anonymize: bool = False,
    timeout_scale: float = 1.0,
    progress: ProgressCallback | None = None,
    findings: bool = True,
    cache: bool = True,
) -> Snapshot:
    """Probe the live machine into a redacted, fingerprinted Snapshot.

    Args:
        python: interpreter whose environment to probe (default: the running one).
        frameworks: import ML frameworks in the target interpreter.
        anonymize: mask host identity (hostname, usernames in paths, serials, UUIDs).
        timeout_scale: multiply every probe's deadline.
        progress: called as probes start and finish.
        findings: run the rules and attach their findings.
        cache: reuse the framework probe's answers while nothing they depend on changed
            (probes/framework_cache.py); False probes the frameworks again.
    """
    from envsnap.collector import collect as run_probes
    from envsnap.probes.base import ProbeContext

    if python is not None:
        check_interpreter(python)

    ctx = (
        ProbeContext(frameworks=frameworks, cache=cache)
        if python is None
        else ProbeContext(python=python, frameworks=frameworks, cache=cache)
    )
    snapshot = run_probes(ctx, progress=progress, anonymize_identity=anonymize, timeout_scale=timeout_scale)
    return with_findings(snapshot) if findings else snapshot


def with_findings(snapshot: Snapshot) -> Snapshot:
    """Attach the rules' findings to a snapshot (replacing any it had)."""
    return msgspec.structs.replace(snapshot, findings=tuple(check(snapshot)))


def check(snapshot: Snapshot) -> list[Finding]:
    """Run every rule on a snapshot; findings sorted errors first."""
    from envsnap.rules import evaluate

    return list(evaluate(snapshot))


def check_interpreter(python: str) -> None:
    """Refuse a ``--python`` that is not a usable Python interpreter, before any probing.

    Raises:
        BadInput: missing, a directory, not executable, not a Python, or older than the probes need.
    """
    path = Path(python)
    if path.is_dir():
        raise BadInput(
            f"--python {python}: is a directory; give the interpreter, e.g. {path / 'bin' / 'python'}"
        )
    if not path.exists():
        raise BadInput(f"--python {python}: no such file")
    if not os.access(path, os.X_OK):
        raise BadInput(f"--python {python}: not executable")
    from envsnap.probes.python.probe import interpreter_problem

    problem = interpreter_problem(python)
    if problem is not None:
        raise BadInput(f"--python {python}: {problem}")


def load(path: str | Path) -> Snapshot:
    """Read a snapshot file, or any pasted report (imported on the fly), or standard input for ``-``.

    A report (collect_env, nvidia-smi, pip list, ...; see importers/detect.py) comes back as a
    finalized imported snapshot whose ``meta.origin`` names the sections found.

    Raises:
        BadInput: unreadable, a damaged snapshot, or neither a snapshot nor a report.
    """
    from envsnap.importers import load_any
    from envsnap.snapshot import files, store
    from envsnap.snapshot.finalize import finalize, utc_now

    text, name = files.read_input(path, store.snapshot_max_bytes())
    snapshot = load_any(text, name, captured_at=utc_now())
    imported = snapshot.meta.origin is not None and snapshot.meta.origin.format == "auto"
    return finalize(snapshot) if imported else snapshot


def load_checked(paths: Sequence[str | Path]) -> tuple[list[Snapshot], list[str]]:
    """Load (``-``: standard input), redact and re-fingerprint each file.

    Returns:
        The snapshots, and the files whose stored fingerprint did not match their content.

    Raises:
        BadInput: a file cannot be read or is not a valid snapshot.
    """
    from envsnap.snapshot.finalize import checked

    snapshots: list[Snapshot] = []
    edited: list[str] = []
    for path in paths:
        snapshot, changed = checked(load(path))
        snapshots.append(snapshot)
        if changed:
            edited.append(str(path))
    return snapshots, edited


def save(snapshot: Snapshot, path: str | Path | None = None, *, folder: str | Path | None = None) -> Path:
    """Write a snapshot atomically and return the path written.

    Args:
        snapshot: what to write.
        path: this file, replaced if it exists; its folder must exist (a typo creates no folders).
        folder: without ``path``, where the default name goes (default ``snapshots/``, created if
            missing): ``<host>-<UTC time>.yaml``, never replacing a file (two saves in one second
            get ``...-1.yaml``).
    """
    from envsnap.snapshot import files, store

    if path is not None:
        return store.save(snapshot, Path(path))
    target = default_snapshot_path(snapshot, Path(folder) if folder is not None else DEFAULT_SNAPSHOT_DIR)
    return files.write_new(target, store.dumps(snapshot), create_folder=True)


def diff(old: Snapshot, new: Snapshot, **options: Any) -> Sequence[Change]:
    """Changes from ``old`` to ``new``, layer-aware (see envsnap.compare.diff)."""
    # The module is `comparison`, not `diff`: a submodule named like this function would be bound
    # over it on `envsnap` at first import, breaking `envsnap.diff(...)`.
    from envsnap.compare.diff import diff as compare

    return compare(old, new, **options)


_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def default_snapshot_path(snapshot: Snapshot, folder: Path = DEFAULT_SNAPSHOT_DIR) -> Path:
    """``snapshots/<host>-<UTC timestamp>.yaml``, using the host alias when anonymized."""
    host = (
        snapshot.meta.host_alias
        or (snapshot.host.hostname if snapshot.host else None)
        or socket.gethostname()
    )
    stamp = snapshot.meta.captured_at.replace("-", "").replace(":", "")
    return folder / f"{_UNSAFE_IN_NAME.sub('_', host)}-{stamp}.yaml"
