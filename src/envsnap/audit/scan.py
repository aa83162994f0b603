"""Scanning a project: walk the tree, hand each file to its scanner, in parallel across cores.

The speed budget is "a few times ``rg -c cuda``" on a large tree, so the work per file is shaped
like grep's: read the bytes, find every trigger word in one Aho-Corasick pass, and only parse the
few files with one on a code line, and of those only the statements that hold one (a syntax tree
costs ~100× a byte search). Chunks of
files go to a process pool (parsing is CPU-bound; threads would share one GIL) when the tree is
big enough to pay for the pool, and only from a single-threaded process, where fork is safe.

Every file is hostile: sizes are capped before reading, decoding and parse errors become
``Skipped`` entries with the reason, and nothing a file contains can stop the scan.
"""

from __future__ import annotations

import math
import os
import re
import stat
import struct
import sys
import threading
import zipfile
import zlib
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import msgspec

from envsnap.audit.across_files import across_files
from envsnap.audit.model import UNREFERENCED, ScanResult, Signal, Skipped
from envsnap.audit.scanners.artifacts import NotRegularFile, scan_artifact
from envsnap.audit.scanners.build import scan_build
from envsnap.audit.scanners.native import scan_native
from envsnap.audit.scanners.native_trigger import native_triggered
from envsnap.audit.scanners.python import scan_python
from envsnap.audit.scanners.python_local import local_imports
from envsnap.audit.scanners.python_trigger import trigger_lines
from envsnap.audit.scanners.torch_pin import is_pin_file, torch_pins
from envsnap.audit.walk import Entry, walk

MAX_TEXT_BYTES = 2 * 1024 * 1024
"""Source files larger than this are generated or vendored, not written by hand: left out, listed."""
PARALLEL_MIN_FILES = 400
"""Below this many files a process pool costs more than it saves."""
PARALLEL_MIN_CPUS = 2
"""A pool of two pays when both CPUs are free (transformers on a 2-core machine: 0.33 s against 0.51 s
in one process) and loses when one is busy (0.83 s against 0.61 s): CPUs are counted idle ones."""
CHUNK_FILES = 128

FileResult = tuple[list[Signal], list[Skipped], bool]


def scan_tree(root: str, *, workers: int | None = None, exclude: Sequence[str] = ()) -> ScanResult:
    """Every signal in the project under ``root``.

    Args:
        root: the project directory.
        workers: processes to parse with (default: the usable CPUs; 1 scans in this process).
        exclude: glob patterns of paths (or folder names) to leave out (``--exclude``).
    """
    layout: list[tuple[str, str, str]] = []
    entries, skipped, seen = walk(root, exclude=exclude, layout=layout)
    results = _run(entries, workers)
    own = own_packages(root, entries)
    signals: list[Signal] = list(_layout_signals(layout))
    parsed = 0
    for found, problems, was_parsed in results:
        # `import apex` inside apex is the project itself, not a CUDA-only dependency.
        signals.extend(s for s in found if not (s.kind == "import" and s.subject.split(".")[0] in own))
        skipped.extend(problems)
        parsed += was_parsed
    # Backend files walk does not scan (an mps/ folder's .mm sources) still name the ops a port covers.
    paths = {entry.relative for entry in entries} | {relative for relative, _, _ in layout}
    signals = across_files(signals, paths)
    signals = _referenced_elsewhere(signals, entries)
    signals.sort(key=lambda s: (s.file or "", s.line or 0, s.kind, s.subject))
    return ScanResult(
        root=root,
        signals=tuple(signals),
        files_seen=seen,
        files_parsed=parsed,
        skipped=tuple(sorted(skipped, key=lambda s: s.file)),
    )


def _referenced_elsewhere(signals: list[Signal], entries: Sequence[Entry]) -> list[Signal]:
    """Drop the UNREFERENCED mark of a Triton function that another Python file of the tree names.

    The scanner sees one module: a ``@triton.jit`` helper its module never calls may still be imported and
    called by another (a kernel module importing a shared helper). Only the few marked names are searched,
    in the other Python files' text, so a tree without such helpers reads nothing more.
    """
    marked = {
        item[len(UNREFERENCED) :]: s.file
        for s in signals
        for item in s.detail
        if item.startswith(UNREFERENCED)
    }
    if not marked:
        return signals
    named: set[str] = set()
    patterns = {name: re.compile(rb"\b" + re.escape(name.encode()) + rb"\b") for name in marked}
    for entry in entries:
        if entry.kind != "python":
            continue
        others = [name for name, file in marked.items() if file != entry.relative and name not in named]
        if not others:
            continue
        try:
            data = _read_capped(entry)
        except (OSError, NotRegularFile):
            continue  # the scan itself listed this file as skipped
        if data is None:
            continue
        named.update(name for name in others if patterns[name].search(data))
    if not named:
        return signals
    return [
        msgspec.structs.replace(
            s,
            detail=tuple(
                d for d in s.detail if not (d.startswith(UNREFERENCED) and d[len(UNREFERENCED) :] in named)
            ),
        )
        if any(d.startswith(UNREFERENCED) for d in s.detail)
        else s
        for s in signals
    ]


def own_packages(root: str, entries: Sequence[Entry]) -> frozenset[str]:
    """The project's own top-level import names: root packages (also under ``src/``), and the folder name.

    A checkout named ``DeepSpeed`` or ``apex`` imports ``deepspeed``/``apex`` from itself (the whole
    folder name only: ``tensorrt_engine`` is not ``tensorrt``).
    """
    names = set()
    for entry in entries:
        # A top-level folder (or src/<name>) holding Python is importable under its name, with or
        # without an __init__.py (namespace packages).
        parts = entry.relative.split("/")
        if entry.kind == "python" and len(parts) >= 2:
            names.add(parts[1] if parts[0] == "src" and len(parts) >= 3 else parts[0])
    base = os.path.basename(os.path.abspath(root)).lower()
    names.add(re.sub(r"[^a-z0-9_]", "", base.replace("-", "_")))
    return frozenset(names)


def _layout_signals(layout: Sequence[tuple[str, str, str]]) -> list[Signal]:
    """One ``port`` signal per target kind and backend folder/file kind (the first file shows it)."""
    seen: set[tuple[str, str]] = set()
    signals = []
    for relative, target, reason in layout:
        key = (target, reason)
        if key in seen:
            continue
        seen.add(key)
        signals.append(
            Signal(
                kind="port",
                layer="source",
                file=relative,
                code=relative,
                subject=target,
                guarded=True,
                detail=(f"reason={reason}",),
            )
        )
    return signals


def _run(entries: Sequence[Entry], workers: int | None) -> list[FileResult]:
    count = workers or _idle_cpus()
    if count < PARALLEL_MIN_CPUS or len(entries) < PARALLEL_MIN_FILES or not _fork_is_safe():
        return [scan_file(entry) for entry in entries]
    import multiprocessing

    chunks = [list(entries[i : i + CHUNK_FILES]) for i in range(0, len(entries), CHUNK_FILES)]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(count, len(chunks)), mp_context=context) as pool:
        return [result for chunk in pool.map(_scan_chunk, chunks) for result in chunk]


def _scan_chunk(chunk: list[Entry]) -> list[FileResult]:
    return [scan_file(entry) for entry in chunk]


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _idle_cpus() -> int:
    """The usable CPUs less those the machine is busy with (the 1-minute load average).

    A GPU host often runs a training job on most cores: the scan then takes what is left rather than
    competing with it.
    """
    usable = _usable_cpus()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return usable
    # Rounded up: a CPU is idle unless fully busy, and a scan that has run a while counts its own
    # process in the average (repeated runs would otherwise never get the pool).
    return max(1, min(usable, math.ceil(usable - load)))


def _fork_is_safe() -> bool:
    """Fork only a single-threaded process on a platform that forks (a forked lock can deadlock)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


def scan_file(entry: Entry) -> FileResult:
    """The signals of one file, what could not be read, and whether its content was parsed."""
    try:
        if entry.kind == "artifact":
            signal = scan_artifact(entry.path, entry.relative)
            return ([signal] if signal else []), [], signal is not None
        data = _read_capped(entry)
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
        if entry.kind == "python" and b"\x00" not in data:
            pins = [*pins, *local_imports(entry.relative, data)]
        if entry.kind == "python" and not (hot := trigger_lines(data)):
            return pins, [], any(s.kind != "local-import" for s in pins)
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


def _read_capped(entry: Entry) -> bytes | None:
    """The file's bytes, or None past the cap; ``os.read`` skips the io layer (a third of the cost).

    O_NOFOLLOW: a file swapped for a link after the walk is refused, not followed; O_NONBLOCK: a
    file swapped for a FIFO does not hang the scan.
    """
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    fd = os.open(entry.path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile("not a regular file")
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
