"""The audit's per-file cache: a file's signals are kept until the file or envsnap itself changes.

Re-auditing a tree (in CI after each push, after an edit, once per target) parsed every file with a
trigger word again; the signals of a file depend only on its bytes, its path and envsnap's own
code. So each file's result is stored under its stat stamp (size, mtime, ctime, inode, device:
ctime changes with any write and cannot be set back by ``touch``), and the whole file is keyed on a
fingerprint of the installed envsnap package (every module's and table's size and mtime: an
upgrade or an edited rule starts afresh). The cross-file steps (own packages, ports across files)
always run on the merged results.

As git does for its index ("racy git"), a file changed within ``RACY_NS`` of the scan is never
stored: a write in the same timestamp tick as the stat would otherwise leave a stale entry. Results
that depend on the moment (a read error, a file swapped for a FIFO) are not stored either.

The file is ``$XDG_CACHE_HOME/envsnap/audit-v1/<hash of the tree's real path>.msgpack``, in a
folder only its owner can read (it holds lines of the project's code), written atomically; a
missing, corrupt, oversized or foreign file counts as empty. ``envsnap audit --no-cache`` skips it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path

import msgspec

from envsnap._version import __version__
from envsnap.audit.model import Signal, Skipped

FOLDER = "audit-v1"
MAX_BYTES = 64 * 1024 * 1024
"""A cache file larger than this is not read (nor written): a tree that big re-parses."""
MAX_FILES = 32
"""Trees remembered; the least recently written is dropped first."""
RACY_NS = 2_000_000_000
"""A file modified this close to the scan is not stored (2 s: FAT's mtime resolution)."""
_TRANSIENT = ("cannot read", "not a regular file")
"""Skip reasons of the moment, not of the file's bytes: scanned again next time."""

Stamp = tuple[int, int, int, int, int]
"""(size, mtime_ns, ctime_ns, inode, device) of a file, from ``lstat``."""


class CachedFile(msgspec.Struct, array_like=True):
    stamp: Stamp
    signals: list[Signal]
    skipped: list[Skipped]
    parsed: bool


class CacheFile(msgspec.Struct, kw_only=True):
    fingerprint: str
    files: dict[str, CachedFile]


FileResult = tuple[list[Signal], list[Skipped], bool]


def stamp_of(info: os.stat_result) -> Stamp:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def default_folder(environ: Mapping[str, str] | None = None) -> Path:
    """Where the audit caches live; XDG says a relative ``XDG_CACHE_HOME`` must be ignored."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "envsnap" / FOLDER


def cache_path(root: str, folder: Path | None = None) -> Path:
    real = os.path.realpath(root)
    name = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return (folder or default_folder()) / f"{name}.msgpack"


def fingerprint() -> str:
    """envsnap's version and the size and mtime of every module and table of the package."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(__version__.encode())
    stack = [str(package)]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as listing:
                items = sorted(listing, key=lambda item: item.name)
        except OSError:
            continue
        for item in items:
            if item.is_dir(follow_symlinks=False):
                if item.name != "__pycache__":
                    stack.append(item.path)
            elif item.name.endswith((".py", ".yaml")):
                with contextlib.suppress(OSError):
                    info = item.stat(follow_symlinks=False)
                    digest.update(f"{item.path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class ScanCache:
    """One tree's cached results: ``lookup`` before scanning a file, ``keep`` after, ``save`` at the end."""

    def __init__(self, root: str, folder: Path | None = None) -> None:
        self.path = cache_path(root, folder)
        self.fingerprint = fingerprint()
        self.started_ns = time.time_ns()
        self._old = _read(self.path, self.fingerprint)
        self._new: dict[str, CachedFile] = {}
        self.hits = 0

    def lookup(self, relative: str, stamp: Stamp) -> FileResult | None:
        cached = self._old.get(relative)
        if cached is None or tuple(cached.stamp) != stamp:
            return None
        self._new[relative] = cached
        self.hits += 1
        return list(cached.signals), list(cached.skipped), cached.parsed

    def keep(self, relative: str, stamp: Stamp, result: FileResult) -> None:
        signals, skipped, parsed = result
        if max(stamp[1], stamp[2]) >= self.started_ns - RACY_NS:
            return
        if any(problem.reason.startswith(_TRANSIENT) for problem in skipped):
            return
        self._new[relative] = CachedFile(
            stamp=stamp, signals=list(signals), skipped=list(skipped), parsed=parsed
        )

    def save(self) -> None:
        """Write the results kept this run (only when they differ from the file's); errors are ignored."""
        if self._new.keys() == self._old.keys() and self.hits == len(self._new):
            return  # nothing new: a warm run writes nothing
        data = msgspec.msgpack.encode(CacheFile(fingerprint=self.fingerprint, files=self._new))
        if len(data) > MAX_BYTES:
            return
        _write(self.path, data)


def _read(path: Path, expected: str) -> dict[str, CachedFile]:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    try:
        info = os.fstat(fd)
        # Someone else's file, or one others may write, could hide findings: not ours to trust.
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_size > MAX_BYTES
            or info.st_uid != os.getuid()
            or info.st_mode & 0o022
        ):
            return {}
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError:
        return {}
    finally:
        os.close(fd)
    try:
        cache = msgspec.msgpack.decode(data, type=CacheFile)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return {}
    return cache.files if cache.fingerprint == expected else {}


def _write(path: Path, data: bytes) -> None:
    import tempfile  # only a run that scanned something writes

    temporary: str | None = None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            dir=path.parent, prefix=f".{path.name}.", suffix=".partial", delete=False
        ) as handle:
            temporary = handle.name
            handle.write(data)
        os.replace(temporary, path)
        temporary = None
        _prune(path.parent)
    except OSError:
        pass
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _prune(folder: Path) -> None:
    """Keep the MAX_FILES most recently written trees."""
    with contextlib.suppress(OSError):
        files = sorted(folder.glob("*.msgpack"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in files[MAX_FILES:]:
            with contextlib.suppress(OSError):
                old.unlink()
