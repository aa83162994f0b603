"""The compiled-extension scan cache: ELF facts keyed by (path, size, mtime_ns), one JSON file per user.

A warm scan of an environment then costs a directory walk and a ``stat`` per shared object.
The file is ``$XDG_CACHE_HOME/envsnap/extensions-v1.json`` (``~/.cache/...`` by default). It is
envsnap's own cache, so it follows envsnap's environment, not the probed interpreter's. Writes go
to a temporary file that is renamed over the old one; a missing, corrupt or foreign file is
treated as empty; failing to write is silent: the cache only ever saves time.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

import msgspec

from envsnap.probes.extensions.elf_scan import ElfFacts

FILE_NAME = "extensions-v1.json"


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    size: int
    mtime_ns: int
    facts: ElfFacts


class CacheFile(msgspec.Struct, kw_only=True):
    version: int = 1
    objects: dict[str, Entry] = msgspec.field(default_factory=dict)


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the cache lives; XDG says a relative ``XDG_CACHE_HOME`` must be ignored."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "envsnap" / FILE_NAME


class ObjectCache:
    """Load once, look up and add during a scan, save once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._objects = self._load(path)
        self._dirty = False

    @staticmethod
    def _load(path: Path) -> dict[str, Entry]:
        try:
            data = msgspec.json.decode(path.read_bytes(), type=CacheFile)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return {}
        return data.objects if data.version == 1 else {}

    def get(self, path: str, size: int, mtime_ns: int) -> ElfFacts | None:
        """The cached facts, if the file has not changed since."""
        entry = self._objects.get(path)
        if entry is None or entry.size != size or entry.mtime_ns != mtime_ns:
            return None
        return entry.facts

    def put(self, path: str, size: int, mtime_ns: int, facts: ElfFacts) -> None:
        self._objects[path] = Entry(size=size, mtime_ns=mtime_ns, facts=facts)
        self._dirty = True

    def forget_missing(self, roots: Iterable[str], seen: set[str]) -> None:
        """Drop entries under the scanned roots that this scan did not meet (deleted or renamed files)."""
        prefixes = tuple(root.rstrip("/") + "/" for root in roots)
        stale = [path for path in self._objects if path.startswith(prefixes) and path not in seen]
        for path in stale:
            del self._objects[path]
        self._dirty = self._dirty or bool(stale)

    def save(self) -> None:
        """Write atomically if anything changed; errors are ignored."""
        if not self._dirty:
            return
        data = msgspec.json.encode(CacheFile(objects=dict(sorted(self._objects.items()))))
        temporary: str | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(
                dir=self.path.parent, prefix=f".{FILE_NAME}.", suffix=".partial", delete=False
            ) as handle:
                temporary = handle.name
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
        except OSError:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
            return
        self._dirty = False
