"""Scanning one file: read it (capped, never following a link), prefilter, hand it to its scanner.

Every file is hostile: sizes are capped before reading, decoding and parse errors become
``Skipped`` entries with the reason, and nothing a file contains can stop the scan. Kept apart
from the tree walk (``scan``) so that an audit whose files all come from the cache never imports
the scanners.
"""

from __future__ import annotations

import struct
import zipfile
import zlib

from envsnap.audit.file_read import MAX_TEXT_BYTES, NotRegularFile, read_capped
from envsnap.audit.model import Signal, Skipped
from envsnap.audit.scan_cache import FileResult
from envsnap.audit.scanners.artifacts import scan_artifact
from envsnap.audit.scanners.build import scan_build
from envsnap.audit.scanners.native import scan_native
from envsnap.audit.scanners.native_trigger import native_triggered
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_trigger import trigger_lines
from envsnap.audit.scanners.torch_pin import is_pin_file, torch_pins
from envsnap.audit.walk import Entry


def scan_file(entry: Entry) -> FileResult:
    """The signals of one file, what could not be read, and whether its content was parsed."""
    try:
        if entry.kind == "artifact":
            signal = scan_artifact(entry.path, entry.relative)
            return ([signal] if signal else []), [], signal is not None
        data = read_capped(entry)
        if data is None:
            return (
                [],
                [
                    Skipped(
                        file=entry.relative,
                        reason=f"larger than {MAX_TEXT_BYTES // 1024 // 1024} MB, not scanned",
                    )
                ],
                False,
            )
        pins: list[Signal] = []
        if is_pin_file(entry.relative) and b"torch" in data and b"\x00" not in data:
            pins = list(torch_pins(entry.relative, data.decode("utf-8", errors="replace")))
        hot: list[int] = []
        if entry.kind == "python" and not (hot := trigger_lines(data)):
            return pins, [], bool(pins)
        if entry.kind == "native" and not native_triggered(data):
            return [], [], False
        if b"\x00" in data:
            return [], [Skipped(file=entry.relative, reason="binary data, not text")], False
        text = data.decode("utf-8", errors="strict")
        if entry.kind == "python":
            return [*pins, *scan_python(entry.relative, text, hot)], [], True
        if entry.kind == "native":
            return list(scan_native(entry.relative, text)), [], True
        return [*pins, *scan_build(entry.relative, text, entry.kind)], [], True
    except UnicodeDecodeError as err:
        return [], [Skipped(file=entry.relative, reason=f"not UTF-8 text (byte {err.start})")], False
    except SyntaxError as err:
        return (
            [],
            [Skipped(file=entry.relative, reason=f"not parseable Python: {err.msg} (line {err.lineno})")],
            False,
        )
    except RecursionError:
        return [], [Skipped(file=entry.relative, reason="nested too deeply to parse")], False
    except NotRegularFile:
        return [], [Skipped(file=entry.relative, reason="not a regular file")], False
    except OSError as err:
        return [], [Skipped(file=entry.relative, reason=f"cannot read: {err.strerror or err}")], False
    except (ValueError, struct.error, KeyError, IndexError, EOFError) as err:
        return [], [Skipped(file=entry.relative, reason=f"malformed: {_one_line(err)}")], False
    except UNREADABLE as err:
        return [], [Skipped(file=entry.relative, reason=f"unreadable: {_one_line(err)}")], False


UNREADABLE = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    NotImplementedError,
    RuntimeError,
    MemoryError,
)
"""What a hostile file makes the readers raise besides ValueError: a corrupt, encrypted (RuntimeError),
unsupported-method or future-version (NotImplementedError) zip member, or a parser that runs out of
memory (10,000 unary minus signs). The file is listed as unreadable and the audit goes on."""


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text[:120]
