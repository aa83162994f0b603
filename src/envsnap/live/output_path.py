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

import contextlib
import os
from datetime import datetime, timezone
from pathlib import Path

from envsnap.errors import BadInput

MAX_SUFFIX = 1000
"""Most ``-n`` suffixes tried for a default name before giving up."""


def default_report_path(prefix: str, now: datetime | None = None, pid: int | None = None) -> Path:
    """``<prefix>-<UTC time with ms>-<pid>.yaml`` in the current folder."""
    now = now or datetime.now(timezone.utc)
    stamp = now.strftime("%Y%m%dT%H%M%S") + f".{now.microsecond // 1000:03d}Z"
    return Path(f"{prefix}-{stamp}-{os.getpid() if pid is None else pid}.yaml")


def check_writable(path: Path, flag: str = "--report") -> None:
    """Refuse a report path that can't be written, by creating a scratch file next to it.

    ``store.check_writable`` does the trying (the same check ``envsnap save -o`` gets); this names
    the option in the message. A device (``/dev/stderr``) is accepted: reports are written through.

    Raises:
        BadInput: a folder, a folder that can't be created, or one where no file can be created.
    """
    from envsnap.snapshot.store import check_writable as try_writing

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
    from envsnap.snapshot.store import NEW_FILE_MODE, is_special, write_atomic, write_temp

    if overwrite or is_special(path):
        write_atomic(path, text)
        return path
    try:
        tmp_name = write_temp(path, text, NEW_FILE_MODE)
    except OSError as err:
        raise BadInput(f"{path}: cannot write: {err.strerror or err}") from None
    try:
        return _link_new(Path(tmp_name), path)
    except OSError as err:
        raise BadInput(f"{path}: cannot write: {err.strerror or err}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)


def _link_new(source: Path, path: Path) -> Path:
    """Give ``source`` the first free name of ``path``, ``path-1`` ...; a hard link never replaces."""
    for n in range(MAX_SUFFIX):
        candidate = path if n == 0 else path.with_name(f"{path.stem}-{n}{path.suffix}")
        try:
            os.link(source, candidate)
            return candidate
        except FileExistsError:
            continue
        except OSError as err:
            # No hard links here (some FUSE and FAT mounts): exclusive creation is still no-clobber.
            if not _no_links(err):
                raise BadInput(f"{path}: cannot write: {err.strerror or err}") from None
            return _create_new(source, path)
    raise BadInput(f"{path}: {MAX_SUFFIX} reports of that name exist already")


def _create_new(source: Path, path: Path) -> Path:
    text = source.read_bytes()
    for n in range(MAX_SUFFIX):
        candidate = path if n == 0 else path.with_name(f"{path.stem}-{n}{path.suffix}")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        except OSError as err:
            raise BadInput(f"{path}: cannot write: {err.strerror or err}") from None
        with os.fdopen(fd, "wb") as handle:
            handle.write(text)
        return candidate
    raise BadInput(f"{path}: {MAX_SUFFIX} reports of that name exist already")


def _no_links(err: OSError) -> bool:
    import errno

    return err.errno in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK)
