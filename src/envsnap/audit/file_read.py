"""Reading one listed file of a project: a regular file, never a link, never a FIFO, at most a cap.

Apart from the scanners (``file_scan``) so that the passes over a whole tree that read a few files'
text (``scan``) do not import every scanner: an audit whose files all come from the cache reads
some files again and parses none.
"""

from __future__ import annotations

import os
import stat

from envsnap.audit.walk import Entry

MAX_TEXT_BYTES = 2 * 1024 * 1024
"""Source files larger than this are generated or vendored, not written by hand: left out, listed."""


class NotRegularFile(ValueError):
    """A FIFO, device or socket where a file was listed (swapped after the walk)."""


def regular_fd(path: str) -> int:
    """A descriptor of the file opened for reading, refused unless it is a regular file (never a link).

    O_NOFOLLOW: a file swapped for a link after the walk is refused, not followed; O_NONBLOCK: opening a
    FIFO swapped in after the walk returns at once instead of waiting for a writer, and its type is then
    refused. The caller reads this one descriptor, so the file checked is the file read.
    """
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile("not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_capped(entry: Entry) -> bytes | None:
    """The file's bytes (``regular_fd``), or None past the cap; ``os.read`` skips the io layer (a third of
    the cost)."""
    fd = regular_fd(entry.path)
    try:
        chunks = []
        size = 0
        while size <= MAX_TEXT_BYTES:
            chunk = os.read(fd, MAX_TEXT_BYTES + 1 - size if size else 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return None if size > MAX_TEXT_BYTES else b"".join(chunks)
