"""Walking a project tree safely: which files to scan, which to leave, and never a symlink.

A project directory is untrusted input. The walk never follows a symbolic link (a link to ``/``
or a loop would take it out of the tree or round in circles): links are listed as skipped.
Virtual environments, VCS metadata and caches are not the project's code and are pruned.
Files are classified by name only here; content is read by the scanners, with size caps.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from envsnap.audit.model import Skipped
from envsnap.audit.ports import layout_evidence
from envsnap.audit.roles import role_of
from envsnap.audit.scan_cache import Stamp, stamp_of

FileKind = Literal[
    "python", "native", "build", "make", "docker", "requirements", "metadata", "shell", "artifact"
]

PRUNED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "env",
        ".env",
        "node_modules",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "site-packages",
        ".eggs",
        ".cache",
    }
)
"""Directories that hold no project source (environments, VCS data, caches)."""

MAX_FILES = 200_000
"""Stop listing after this many files (a mis-aimed audit of ``/`` ends, with a note)."""

NATIVE_SUFFIXES = frozenset({".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hip", ".inl"})
ARTIFACT_SUFFIXES = frozenset(
    {".safetensors", ".pt", ".pth", ".bin", ".ckpt", ".onnx", ".engine", ".plan", ".trt", ".gguf"}
)


CORE_METADATA = frozenset({"PKG-INFO", "METADATA"})
"""A wheel's ``*.dist-info/METADATA`` and an sdist's ``PKG-INFO``: the released package's core metadata, whose
``Requires-Dist`` headers are its requirements (https://packaging.python.org/en/latest/specifications/
core-metadata/#requires-dist-multiple-use). Case matters: the names are fixed by the specification."""


@dataclass(frozen=True)
class Entry:
    """A file to scan: its path, its path relative to the root (POSIX), and its kind."""

    path: str
    relative: str
    kind: FileKind


def classify(name: str) -> FileKind | None:
    """The scanner a file name calls for, or None when it is not scanned."""
    lower = name.lower()
    suffix = os.path.splitext(lower)[1]
    if suffix in (".py", ".pyi"):
        return "python"
    if suffix in NATIVE_SUFFIXES:
        return "native"
    if lower in ("pyproject.toml", "cmakelists.txt", "setup.cfg") or suffix == ".cmake":
        return "build"
    if lower in ("makefile", "gnumakefile") or suffix in (".mk", ".make"):
        return "make"
    if lower.startswith(("dockerfile", "containerfile")) or suffix in (".dockerfile", ".containerfile"):
        return "docker"
    if suffix in (".txt", ".in") and lower.startswith(("requirements", "constraints")):
        return "requirements"
    if name in CORE_METADATA:
        return "metadata"
    if suffix in (".sh", ".bash"):
        return "shell"
    if suffix in ARTIFACT_SUFFIXES:
        return "artifact"
    return None


def walk(
    root: str,
    *,
    exclude: Sequence[str] = (),
    layout: list[tuple[str, str, str]] | None = None,
    stamps: dict[str, Stamp] | None = None,
) -> tuple[list[Entry], list[Skipped], int]:
    """Every scannable file under ``root``, the files left out (with why), and how many were seen.

    Symbolic links (to files or directories) are never followed; unreadable directories are
    listed as skipped; the listing stops at MAX_FILES.

    Args:
        exclude: glob patterns (``--exclude``) matched against the relative path and each folder.
        layout: when given, receives ``(relative path, target kind, reason)`` for every core file that
            sits in a backend folder for another target (``hip/``, ``xpu/``, ``metal/``) or is a
            backend source (``.hip``, ``.metal``): evidence the project is already ported.
        stamps: when given, receives each scanned file's ``lstat`` stamp (for the scan cache); a file
            that cannot be stat'ed gets none and is scanned.
    """
    entries: list[Entry] = []
    skipped: list[Skipped] = []
    seen = 0
    for relative, item in _iterate(root, skipped, tuple(exclude)):
        seen += 1
        if seen > MAX_FILES:
            skipped.append(Skipped(file=relative, reason=f"listing stopped after {MAX_FILES} files"))
            break
        kind = classify(item.name)
        if kind is not None:
            entries.append(Entry(os.path.join(root, relative), relative, kind))
            if stamps is not None:
                with contextlib.suppress(OSError):
                    stamps[relative] = stamp_of(item.stat(follow_symlinks=False))
        if layout is not None and role_of(relative) == "core":
            layout.extend((relative, target, reason) for target, reason in layout_evidence(relative))
    return entries, skipped, min(seen, MAX_FILES)


def excluded(relative: str, patterns: tuple[str, ...]) -> bool:
    """Whether ``--exclude`` patterns drop this path (the whole path, or any folder name on it)."""
    if not patterns:
        return False
    return any(
        fnmatch.fnmatchcase(relative, pattern)
        or fnmatch.fnmatchcase(relative, pattern.rstrip("/") + "/*")
        or any(fnmatch.fnmatchcase(part, pattern.rstrip("/")) for part in relative.split("/"))
        for pattern in patterns
    )


def _iterate(
    root: str, skipped: list[Skipped], exclude: tuple[str, ...] = ()
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """(relative path, directory entry) of every regular file, depth first, in sorted order.

    File types come from the directory listing (``d_type``), so a file costs no ``stat`` call;
    the ``follow_symlinks=False`` checks mean a link is seen as a link, never as its target.
    """
    stack = [""]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(os.path.join(root, folder) if folder else root) as listing:
                items = sorted(listing, key=lambda item: item.name)
        except OSError as err:
            skipped.append(Skipped(file=folder or ".", reason=f"cannot list: {err.strerror or err}"))
            continue
        subfolders = []
        for item in items:
            relative = f"{folder}/{item.name}" if folder else item.name
            if exclude and excluded(relative, exclude):
                continue
            try:
                if item.is_symlink():
                    if classify(item.name) is not None or _is_dir_link(item):
                        skipped.append(Skipped(file=relative, reason="symbolic link, not followed"))
                    continue
                if item.is_dir(follow_symlinks=False):
                    if item.name not in PRUNED_DIRS and not item.name.endswith(".egg-info"):
                        subfolders.append(relative)
                    continue
                regular = item.is_file(follow_symlinks=False)
            except OSError as err:
                skipped.append(Skipped(file=relative, reason=f"cannot stat: {err.strerror or err}"))
                continue
            if regular:
                yield relative, item
        stack.extend(reversed(subfolders))


def _is_dir_link(item: os.DirEntry[str]) -> bool:
    try:
        return item.is_dir(follow_symlinks=True)
    except OSError:
        return False
