"""The snapshots folder as the Snapshots tab lists it: one entry per YAML file, unreadable ones included.

Read in a thread worker (every file is parsed and validated through ``store.load``). A file that
won't load is still listed, with the one-line reason, because "why is this snapshot broken?" is
worth seeing rather than a silently shorter list.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envsnap.snapshot.model import Snapshot


MAX_ENTRIES = 500
"""Files listed at most (newest names last in sort order are dropped past this)."""


@dataclass(frozen=True)
class SnapshotEntry:
    """One file of the snapshots folder, with what the list shows about it."""

    path: Path
    captured_at: str | None = None
    host: str | None = None
    torch: str | None = None
    fingerprint: str | None = None
    error: str | None = None
    """Why the file could not be read; the other fields are then None."""


def entry_for(path: Path, snapshot: Snapshot) -> SnapshotEntry:
    """The list entry of a loaded snapshot."""
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    host = snapshot.meta.host_alias or (snapshot.host.hostname if snapshot.host else None)
    return SnapshotEntry(
        path=path,
        captured_at=snapshot.meta.captured_at,
        host=host,
        torch=torch.version if torch is not None and torch.ok else None,
        fingerprint=snapshot.fingerprint,
    )


def read_entries(folder: Path) -> tuple[SnapshotEntry, ...]:
    """Every ``*.yaml``/``*.yml`` file in ``folder``, sorted by name; missing folder -> no entries."""
    from envsnap.errors import BadInput
    from envsnap.snapshot import store

    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    except OSError:
        return ()
    entries: list[SnapshotEntry] = []
    for path in paths[:MAX_ENTRIES]:
        try:
            entries.append(entry_for(path, store.load(path)))
        except BadInput as err:
            entries.append(SnapshotEntry(path=path, error=_without_name(str(err), path)))
        except Exception as err:  # a file that trips a bug in a migration is listed, not fatal
            entries.append(SnapshotEntry(path=path, error=f"{type(err).__name__}: {err}"))
    return tuple(entries)


def _without_name(message: str, path: Path) -> str:
    # BadInput messages start with the file name, which the list already shows in its own column.
    prefix = str(path)
    if not message.startswith(prefix):
        return message
    rest = message[len(prefix) :]
    line, sep, tail = rest[1:].partition(":")
    if rest.startswith(":") and sep and line.isdigit():
        return f"line {line}:{tail}"
    return rest.lstrip(":").strip()
