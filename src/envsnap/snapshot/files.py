"""Files envsnap reads and writes, distrustfully: capped reads, atomic and no-clobber writes, no links.

Reading: every input may be hostile, so a read is capped before it is made (a FIFO, a device or a
file past the cap is refused with a one-line ``BadInput``) and text must decode as UTF-8.

Writing: a file is replaced atomically (temp file in the same folder, fsync, rename), so a killed
command leaves the old file or none, never half of one; ``write_new`` never replaces anything and
never follows a symbolic link planted where the file is to go.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import struct
import sys
import tempfile
import time
from pathlib import Path
from typing import BinaryIO

from envsnap.errors import BadInput

MAX_FILE_BYTES = 32 * 1024 * 1024
"""Largest pasted report or other small input accepted (collect_env text, pip freeze, XML)."""


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()  # read once at import, while the process is single-threaded


NEW_FILE_MODE = 0o666 & ~_UMASK
"""Permissions of a file envsnap creates: what ``open()`` would give under this umask."""


def is_special(path: Path) -> bool:
    """A device, FIFO or socket (``/dev/stdout``, ``/dev/null``): written through, never replaced."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def check_writable(path: Path, *, create_folder: bool = False) -> None:
    """Fail early, before slow work, when ``path`` can't be written.

    Creates (and removes) a scratch file next to the target, because ``os.access`` says yes to root
    for read-only places such as /proc and /sys.

    Args:
        path: the file to be written.
        create_folder: create missing folders on the way (only for envsnap's own default folder:
            a typo in a path the user gave must not leave a tree of folders behind).

    Raises:
        BadInput: the target is a directory, its folder is missing (and not to be created), or
            can't be created or written.
    """
    path = Path(path)
    if path.is_dir():
        raise BadInput(f"{path}: is a directory; give a file name")
    if is_special(path):
        try:
            with open(path, "ab"):
                return
        except OSError as err:
            raise BadInput(f"{path}: cannot write: {err.strerror or err}") from err
    target = Path(os.path.realpath(path))
    _require_folder(path, target, create_folder)
    try:
        if create_folder:
            target.parent.mkdir(parents=True, exist_ok=True)
        fd, scratch = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".check", dir=target.parent)
        os.close(fd)
        os.unlink(scratch)
    except OSError as err:
        raise BadInput(f"{path}: cannot write: {err.strerror or err}") from err


def write_atomic(path: Path, text: str, *, create_folder: bool = False) -> None:
    """Replace ``path`` with ``text`` so that readers see the old file or the new one, never a mix.

    A symlink keeps pointing where it did (its target is replaced), an existing file keeps its
    permissions, and a device or FIFO (``-o /dev/stdout``) is written through, not replaced.
    Missing folders are created only with ``create_folder`` (see ``check_writable``).

    Raises:
        BadInput: the path is a directory, or the folder is missing, can't be created or written.
    """
    path = Path(path)
    if path.is_dir():
        raise BadInput(f"{path}: is a directory; give a file name")
    if is_special(path):
        _write_through(path, text)
        return
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mode = NEW_FILE_MODE
    _require_folder(path, target, create_folder)
    try:
        if create_folder:
            target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_partials(target)
        tmp_name = write_temp(target, text, mode)
    except OSError as err:
        raise BadInput(f"{path}: cannot write: {err.strerror or err}") from err
    try:
        os.replace(tmp_name, target)
    except BaseException as err:  # also Ctrl-C right after the write: never leave the temp file
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise BadInput(f"{path}: cannot write: {err.strerror or err}") from err
        raise
    _fsync_dir(target.parent)


def _require_folder(path: Path, target: Path, create_folder: bool) -> None:
    """Refuse a path whose folder is missing, unless envsnap is to create it."""
    if create_folder or target.parent.is_dir():
        return
    folder = path.parent
    if target.parent.exists():
        raise BadInput(f"{path}: cannot write: {folder} is not a folder")
    raise BadInput(
        f"{path}: cannot write: no such folder {folder} (envsnap does not create folders you name)"
    )


def write_new(path: Path, text: str, *, create_folder: bool = False) -> Path:
    """Write ``text`` to ``path`` atomically, never replacing a file: a taken name gets ``-1``, ``-2``...

    For default names, which two runs started in the same second would share (``envsnap save``
    twice, ``srun envsnap run`` on many ranks): the finished file is hard-linked into place, which
    fails if the name exists, so neither write is lost.

    Returns:
        The path written: ``path``, or ``path`` with a ``-n`` suffix when that name was taken.

    Raises:
        BadInput: the file can't be written.
    """
    path = Path(path)
    target = Path(os.path.realpath(path.parent)) / path.name
    _require_folder(path, target, create_folder)
    try:
        if create_folder:
            target.parent.mkdir(parents=True, exist_ok=True)
        tmp_name = write_temp(path, text, NEW_FILE_MODE)
    except OSError as err:
        raise BadInput(f"{path}: cannot write: {err.strerror or err}") from None
    try:
        written = _link_new(Path(tmp_name), path)
    except OSError as err:
        raise BadInput(f"{path}: cannot write: {err.strerror or err}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
    _fsync_dir(target.parent)
    return written


def write_owned(path: Path, text: str, *, marker: str) -> None:
    """Write ``path`` in a folder others may write too: never through a link, never over a stranger's file.

    ``fleet collect -o DIR`` writes node files and ``fleet.yaml`` into a folder that may be shared
    (a scratch space): a ``fleet.yaml`` planted as a link to ``~/.bashrc`` must not be written
    through, and a file envsnap did not write must not be replaced. An existing file is replaced
    only when it is a regular file of this user that starts with ``marker`` (envsnap's own header,
    from an earlier collection). The new file is renamed onto ``path`` itself, not onto what a link
    there points to, so a link planted between the check and the rename is replaced, not followed.

    Raises:
        BadInput: a link, a special file or a foreign file at ``path``, or the folder can't be written.
    """
    path = Path(path)
    _refuse_foreign(path, marker)
    try:
        tmp_name = write_temp(path, text, NEW_FILE_MODE)
    except OSError as err:
        raise BadInput(f"{path}: cannot write: {err.strerror or err}") from None
    try:
        os.replace(tmp_name, path)
    except BaseException as err:
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise BadInput(f"{path}: cannot write: {err.strerror or err}") from None
        raise
    _fsync_dir(path.parent)


def _refuse_foreign(path: Path, marker: str) -> None:
    """Refuse to replace anything at ``path`` but envsnap's own earlier file (see ``write_owned``)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as err:
        raise BadInput(f"{path}: cannot check: {err.strerror or err}") from None
    if stat.S_ISLNK(info.st_mode):
        raise BadInput(f"{path}: is a symbolic link; refusing to write through it")
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(f"{path}: is not a regular file; refusing to replace it")
    head = b""
    if info.st_uid == os.geteuid():
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
            try:
                head = os.read(fd, len(marker.encode()))
            finally:
                os.close(fd)
    if head != marker.encode():
        raise BadInput(f"{path}: exists and was not written by envsnap; refusing to replace it")


MAX_SUFFIX = 1000
"""Most ``-n`` suffixes ``write_new`` tries before giving up."""


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
    raise BadInput(f"{path}: {MAX_SUFFIX} files of that name exist already")


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
    raise BadInput(f"{path}: {MAX_SUFFIX} files of that name exist already")


def _no_links(err: OSError) -> bool:
    return err.errno in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK)


STALE_PARTIAL_S = 60.0
"""A temp file of ours older than this was left by a killed writer (a write takes milliseconds)."""


def remove_stale_partials(target: Path, now: float | None = None) -> list[Path]:
    """Remove ``.<name>.<random>.partial`` files a killed save of ``target`` left behind.

    Only our own naming (``tempfile.mkstemp``'s 8 random characters between the target's name
    and ``.partial``), only for this target, only regular files older than ``STALE_PARTIAL_S``:
    a concurrent save's file in flight is younger, and nobody else's file matches.
    """
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[a-z0-9_]{{8}}\.partial")
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return removed
    for name in names:
        if not pattern.fullmatch(name):
            continue
        candidate = target.parent / name
        try:
            info = candidate.lstat()
            if stat.S_ISREG(info.st_mode) and now - info.st_mtime > STALE_PARTIAL_S:
                candidate.unlink()
                removed.append(candidate)
        except OSError:
            continue  # gone already, or not ours to remove
    return removed


def write_temp(target: Path, text: str, mode: int) -> str:
    """Write ``text`` to a hidden temporary file next to ``target``, synced to disk; return its name.

    The caller moves it into place (``os.replace``, or ``os.link`` never to clobber). A failed or
    interrupted write removes the temporary file.

    Raises:
        OSError: the folder can't be written.
    """
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return tmp_name


def _write_through(path: Path, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as err:
        raise BadInput(f"{path}: cannot write: {err.strerror or err}") from err


def _fsync_dir(folder: Path) -> None:
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not supported on this platform (e.g. Windows); the rename is still atomic
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def read_bytes_capped(
    path: Path, name: str, cap: int = MAX_FILE_BYTES, *, regular_only: bool = False
) -> bytes:
    """Read at most ``cap`` bytes of a file, refusing larger ones before reading them whole.

    ``regular_only``: for files found in a folder rather than named by the user (a fleet folder's
    ``*.yaml``): opened without blocking and refused unless regular, so a FIFO planted there never
    waits for a writer. (A file the user names may be a pipe: ``diff <(ssh a envsnap save -o -)``.)

    Raises:
        BadInput: missing, unreadable, a directory, too large, or (``regular_only``) not a regular file.
    """
    try:
        with _open_for_reading(path, regular_only) as handle:
            # A regular file's size is known up front: refuse a huge one without reading it.
            info = os.fstat(handle.fileno())
            if regular_only and not stat.S_ISREG(info.st_mode):
                raise BadInput(f"{name}: not a regular file (a FIFO, device or socket); refusing to read it")
            if stat.S_ISREG(info.st_mode) and info.st_size > cap:
                raise BadInput(f"{name}: file is larger than {cap // (1024 * 1024)} MB; refusing to read it")
            # read(n) allocates n bytes first: ask for what a regular file says it holds, then for
            # the rest up to the cap only if it holds more (it grew, or it is /proc with size 0).
            first = min(cap, info.st_size) + 1 if stat.S_ISREG(info.st_mode) and info.st_size else cap + 1
            data = handle.read(first)
            if len(data) == first and first <= cap:
                data += handle.read(cap + 1 - first)
    except FileNotFoundError as err:
        raise BadInput(f"{name}: no such file") from err
    except IsADirectoryError as err:
        raise BadInput(f"{name}: is a directory, not a file") from err
    except OSError as err:
        raise BadInput(f"{name}: cannot read: {err.strerror or err}") from err
    if len(data) > cap:
        raise BadInput(f"{name}: file is larger than {cap // (1024 * 1024)} MB; refusing to read it")
    return data


def _open_for_reading(path: Path, nonblocking: bool) -> BinaryIO:
    if not nonblocking:
        return open(path, "rb")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    return os.fdopen(fd, "rb")


def decode_text(data: bytes, name: str) -> str:
    """Decode input as UTF-8 text, refusing binary data.

    Raises:
        BadInput: NUL bytes or invalid UTF-8.
    """
    if b"\x00" in data:
        raise BadInput(f"{name}: binary data, not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise BadInput(f"{name}:{line}: not UTF-8 text (byte 0x{data[err.start]:02x})") from err


def read_input(source: str | Path, cap: int) -> tuple[str, str]:
    """The text of a file, or of standard input for ``-``, refused past ``cap`` bytes; with its name.

    The one reader of every command that takes a file or ``-``: a snapshot, a run report, a pasted
    report. The caller names the cap (``store.snapshot_max_bytes()`` for envsnap's own files,
    ``importers.MAX_PASTE_CHARS`` for a report to import), so a pipe can't hand in more than a file may.

    Raises:
        BadInput: unreadable, larger than ``cap``, or not UTF-8 text.
    """
    if str(source) == "-":
        data = sys.stdin.buffer.read(cap + 1)
        if len(data) > cap:
            raise BadInput(f"<stdin>: input is larger than {cap // (1024 * 1024)} MB; refusing it")
        return decode_text(data, "<stdin>"), "<stdin>"
    name = str(source)
    return decode_text(read_bytes_capped(Path(source), name, cap), name), name


# ---------------------------------------------------------------------------- zip archives

_ZIP_END = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_END = struct.Struct("<4sQ2H2L4Q")
_ZIP_TAIL = _ZIP_END.size + 0xFFFF  # the end record and the longest comment after it


def check_zip_directory(handle: BinaryIO, name: str, *, max_entries: int, max_directory_bytes: int) -> None:
    """Refuse a zip whose central directory is larger than the caps, *before* ``zipfile`` reads it.

    ``zipfile.ZipFile`` parses the whole central directory up front, one ``ZipInfo`` per entry: a
    zip of a million empty entries cost 390 MB and 10-20 s before anyone could count them. The end
    record (in the last 64 KB) says how many entries there are and how many bytes they take; the
    byte count is what ``zipfile`` reads, so it is capped too (a forged small count can't hide it).

    Raises:
        ValueError: no end record, or more entries or directory bytes than allowed.
    """
    size = handle.seek(0, os.SEEK_END)
    start = max(0, size - _ZIP_TAIL)
    handle.seek(start)
    tail = handle.read(size - start)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _ZIP_END.size:
        raise ValueError(f"{name}: no zip end record")
    _, _, _, _, entries, directory, offset, _ = _ZIP_END.unpack_from(tail, at)
    if (entries == 0xFFFF or directory == 0xFFFFFFFF or offset == 0xFFFFFFFF) and at >= _ZIP64_LOCATOR.size:
        locator = _ZIP64_LOCATOR.unpack_from(tail, at - _ZIP64_LOCATOR.size)
        if locator[0] == b"PK\x06\x07":
            handle.seek(locator[2])
            record = handle.read(_ZIP64_END.size)
            if len(record) == _ZIP64_END.size and record[:4] == b"PK\x06\x06":
                entries, directory = _ZIP64_END.unpack(record)[7:9]
    if entries > max_entries:
        raise ValueError(f"{name}: the zip lists {entries} entries, more than {max_entries}")
    if directory > max_directory_bytes:
        raise ValueError(
            f"{name}: the zip's directory of entries takes {directory} bytes, more than {max_directory_bytes}"
        )
    handle.seek(0)
