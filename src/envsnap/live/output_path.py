"""Where live reports go: up-front writability checks, collision-free default names, no-clobber writes.

A run report is worth as much as the run it describes, so a bad path must be refused *before* the
workload starts, not discovered after a night of training. ``os.access`` can't be trusted for
that: as root it says yes to ``/proc`` and ``/sys``, and it knows nothing of read-only mounts or
full quotas. So the check does what the final write will do: it creates (and removes) a temporary
file in the target folder.

Default names carry the start time to the millisecond and envsnap's PID, because ``srun envsnap
run ...`` starts many ranks in the same second in one shared folder. A default name is also never
overwritten: the final write links the finished file into place (which fails if the name exists)
and falls back to ``-1``, ``-2`` ... suffixes. A name the user gave is replaced atomically, as
``envsnap save -o`` does.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from envsnap.errors import BadInput


def default_report_path(prefix: str, now: datetime | None = None, pid: int | None = None) -> Path:
    """``<prefix>-<UTC time with ms>-<pid>.yaml`` in the current folder."""
    now = now or datetime.now(timezone.utc)
    stamp = now.strftime("%Y%m%dT%H%M%S") + f".{now.microsecond // 1000:03d}Z"
    return Path(f"{prefix}-{stamp}-{os.getpid() if pid is None else pid}.yaml")


def check_writable(path: Path, flag: str = "--report") -> None:
    """Refuse a report path that can't be written, by creating a scratch file next to it.

    ``files.check_writable`` does the trying (the same check ``envsnap save -o`` gets); this names
    the option in the message. A device (``/dev/stderr``) is accepted: reports are written through.

    Raises:
        BadInput: a folder, a folder that can't be created, or one where no file can be created.
    """
    from envsnap.snapshot.files import check_writable as try_writing

    try:
        try_writing(path)
    except BadInput as err:
        raise BadInput(f"{flag} {err}") from None


def write_report(path: Path, text: str, *, overwrite: bool) -> Path:
    """Write ``text`` to ``path`` atomically; without ``overwrite``, never replace an existing file.

    Returns:
        The path written: ``path``, or ``path`` with a ``-n`` suffix when that name was taken.

    Raises:
        BadInput: the file can't be written.
    """
    from envsnap.snapshot.files import is_special, write_atomic, write_new

    if overwrite or is_special(path):
        write_atomic(path, text)
        return path
    return write_new(path, text)
