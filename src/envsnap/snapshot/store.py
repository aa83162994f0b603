"""Snapshot files: deterministic YAML out, distrustful YAML in.

Writing: model field order is file order, lists are already in natural order (normalize.py), no
anchors or aliases, multi-line text as block scalars, LibYAML's emitter when present. Files are
replaced atomically (temp file in the same folder, fsync, rename), so a killed ``save`` leaves the
old file or none, never half of one.

Reading: a snapshot may come from another machine or another person, so it is untrusted. Files
over a size cap, binary data, YAML tags, anchors and aliases (an "alias bomb" is refused before it
is expanded), unknown or newer schema versions and wrong types are each refused with a one-line
``BadInput`` naming the file and, where known, the line.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import math
import os
import re
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import yaml

from envsnap import __version__
from envsnap.errors import BadInput
from envsnap.snapshot.model import SCHEMA_VERSION, Snapshot

MAX_FILE_BYTES = 32 * 1024 * 1024
"""Largest pasted report or other small input accepted (collect_env text, pip freeze, XML)."""

SNAPSHOT_MAX_MB_DEFAULT = 256
"""Default cap on a snapshot file, in MiB: a 50k-package snapshot is about 30 MB, and a snapshot
costs roughly 20× its size in memory while loaded, so 256 MiB stays within a workstation's memory."""

SNAPSHOT_MAX_MB_ENV = "ENVSNAP_MAX_SNAPSHOT_MB"
"""Environment variable that overrides the snapshot cap (MiB), e.g. for a 500k-package mirror."""


def snapshot_max_bytes() -> int:
    """The snapshot size cap: ``$ENVSNAP_MAX_SNAPSHOT_MB`` MiB when set to a positive number, else 256 MiB.

    Raises:
        BadInput: the variable is set to something that is not a positive integer.
    """
    raw = os.environ.get(SNAPSHOT_MAX_MB_ENV)
    if raw is None or not raw.strip():
        return SNAPSHOT_MAX_MB_DEFAULT * 1024 * 1024
    try:
        megabytes = int(raw)
    except ValueError:
        megabytes = 0
    if megabytes <= 0:
        raise BadInput(f"{SNAPSHOT_MAX_MB_ENV}={raw[:40]!r}: expected a positive number of MiB")
    return megabytes * 1024 * 1024


_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# Anchors (&a), aliases (*a) and tags (!t) can only appear where a node starts: at the start of a
# line (after indentation and "- ", "? " or "--- ") or after a mapping colon; inside a non-empty
# flow collection ([...] or {...}) also after "[", "{" or ",". Requirement lines such as
# ``foo>=1,!=1.3; python_version != "3.8"`` have "!" mid-scalar and don't match. These regexes may
# also match inside quoted or block text; that only sends the file through the exact event-level
# check, so they can over-match but never miss.
_NODE_START = r"(?:^[ \t]*(?:(?:-|\?|---)[ \t]+)*|:[ \t]*)"
_BLOCK_SUSPECT = re.compile(_NODE_START + r"[&*!]", re.MULTILINE)
_FLOW_OPEN = re.compile(_NODE_START + r"[\[\{](?![ \t]*[\]\}][ \t]*(?:#.*)?$)", re.MULTILINE)
_FLOW_SUSPECT = re.compile(r"[\[\{,][ \t]*[&*!]")


def _suspect(text: str) -> bool:
    """Whether the text may hold an anchor, alias or tag (then the exact check runs)."""
    if _BLOCK_SUSPECT.search(text):
        return True
    return _FLOW_OPEN.search(text) is not None and _FLOW_SUSPECT.search(text) is not None


MAX_INTEGER = 2**63 - 1
"""Largest integer a snapshot may hold (int64, what msgspec and every consumer of the JSON handle)."""


class _StrictLoader(_Loader):  # type: ignore[misc, valid-type]
    """LibYAML's parser with two refusals on top: duplicate mapping keys and out-of-range numbers.

    YAML lets the last of two equal keys win, so a reviewer reading ``version: 8.5.1`` would
    approve a file whose loader sees the ``version: '7.0'`` further down. A ``1e400``-sized integer
    or an infinite float would crash a renderer long after loading. Only the constructor is
    Python; the C parser (the slow part otherwise) stays.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = (key_node.tag, key_node.value)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key_node.value[:80]!r}", key_node.start_mark
                    )
                seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        value: int = super().construct_yaml_int(node)
        if abs(value) > MAX_INTEGER:
            raise yaml.constructor.ConstructorError(
                None, None, f"number out of range ({len(node.value)} digits)", node.start_mark
            )
        return value

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        value: float = super().construct_yaml_float(node)
        if not math.isfinite(value):
            raise yaml.constructor.ConstructorError(
                None, None, f"number out of range ({node.value[:20]!r})", node.start_mark
            )
        return value


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)


class _MetricsLoader(_StrictLoader):
    """The strict loader for numeric reports, where ``.inf`` is a measurement, not an attack.

    A verify report's SQNR of two identical tensors is infinite, and so is an error ratio against
    a reference whose own noise is zero; everything else stays refused (keys, integers, tags).
    """


_MetricsLoader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """Safe dumper that never writes anchors and writes multi-line text as block scalars."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _represent_str)


# ---------------------------------------------------------------------------- writing


def to_builtins(snapshot: Snapshot) -> dict[str, Any]:
    """The snapshot as plain dicts and lists, in file order, ``None`` fields left out."""
    data = msgspec.to_builtins(snapshot)
    assert isinstance(data, dict)
    return data


def to_yaml(data: Any) -> str:
    """Deterministic YAML for plain data: given key order, no anchors, block scalars, LibYAML."""
    text: str = yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=4096,
    )
    return text


def dumps(snapshot: Snapshot) -> str:
    """Serialize a snapshot to deterministic YAML text."""
    header = f"# envsnap snapshot (schema {snapshot.schema}), written by envsnap {__version__}"
    return f"{header}\n{to_yaml(to_builtins(snapshot))}"


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


def save(snapshot: Snapshot, path: Path, *, create_folder: bool = False) -> Path:
    """Write ``snapshot`` to ``path`` atomically and return the path (folders: see ``write_atomic``)."""
    write_atomic(path, dumps(snapshot), create_folder=create_folder)
    return path


# ---------------------------------------------------------------------------- reading

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 only added optional ``meta.origin`` fields (sections, partial, missing, messages)."""
    return data


MIGRATIONS: dict[int, Migration] = {1: _v1_to_v2}
"""``MIGRATIONS[n]`` turns a schema-n document into a schema-(n+1) one."""


def read_bytes_capped(path: Path, name: str, cap: int = MAX_FILE_BYTES) -> bytes:
    """Read at most ``cap`` bytes of a file, refusing larger ones before reading them whole.

    Raises:
        BadInput: missing, unreadable, a directory, or too large.
    """
    try:
        with open(path, "rb") as handle:
            # A regular file's size is known up front: refuse a huge one without reading it.
            info = os.fstat(handle.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size > cap:
                raise BadInput(f"{name}: file is larger than {cap // (1024 * 1024)} MB; refusing to read it")
            data = handle.read(cap + 1)
    except FileNotFoundError as err:
        raise BadInput(f"{name}: no such file") from err
    except IsADirectoryError as err:
        raise BadInput(f"{name}: is a directory, not a file") from err
    except OSError as err:
        raise BadInput(f"{name}: cannot read: {err.strerror or err}") from err
    if len(data) > cap:
        raise BadInput(f"{name}: file is larger than {cap // (1024 * 1024)} MB; refusing to read it")
    return data


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


def load(path: Path | str) -> Snapshot:
    """Read and validate a snapshot file.

    Raises:
        BadInput: with a one-line message naming the file (and line where known).
    """
    name = str(path)
    return loads(decode_text(read_bytes_capped(Path(path), name, snapshot_max_bytes()), name), name)


def loads(text: str, name: str = "<snapshot>") -> Snapshot:
    """Parse and validate snapshot YAML text.

    Raises:
        BadInput: with a one-line message naming ``name`` (and line where known).
    """
    with paused_gc():
        return from_builtins(parse_yaml(text, name, snapshot_max_bytes()), name, text)


def parse_yaml(text: str, name: str, cap: int = MAX_FILE_BYTES, *, infinite_floats: bool = False) -> Any:
    """Parse untrusted YAML into plain data: size-capped, and no anchors, aliases or tags.

    ``infinite_floats`` lets ``.inf``/``.nan`` through, for reports of measurements only.

    Raises:
        BadInput: too large, not YAML, or using anchors, aliases or tags (one line, with the line).
    """
    if len(text) > cap:
        raise BadInput(f"{name}: text is larger than {cap // (1024 * 1024)} MB; refusing to read it")
    if _suspect(text):
        _refuse_anchors_and_tags(text, name)
    try:
        with paused_gc():
            return yaml.load(text, Loader=_MetricsLoader if infinite_floats else _StrictLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        raise BadInput(f"{name}{where}: not valid YAML: {err.problem or err.context}") from err
    except yaml.YAMLError as err:
        raise BadInput(f"{name}: not valid YAML: {err}") from err
    except RecursionError as err:
        raise BadInput(f"{name}: YAML nested too deeply") from err


def _refuse_anchors_and_tags(text: str, name: str) -> None:
    """Walk the YAML event stream (nothing is constructed) and refuse aliases, anchors and tags."""
    try:
        for event in yaml.parse(text, Loader=_Loader):
            line = event.start_mark.line + 1 if event.start_mark is not None else 0
            if isinstance(event, yaml.AliasEvent):
                raise BadInput(f"{name}:{line}: YAML aliases are not allowed in snapshots (*{event.anchor})")
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                raise BadInput(f"{name}:{line}: YAML anchors are not allowed in snapshots (&{anchor})")
            tag = getattr(event, "tag", None)
            implicit = getattr(event, "implicit", True)
            if tag is not None and not (implicit is True or (isinstance(implicit, tuple) and any(implicit))):
                raise BadInput(f"{name}:{line}: YAML tags are not allowed in snapshots ({tag})")
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f":{mark.line + 1}" if mark is not None else ""
        raise BadInput(f"{name}{where}: not valid YAML: {err.problem or err.context}") from err
    except yaml.YAMLError as err:
        raise BadInput(f"{name}: not valid YAML: {err}") from err


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Turn Python's cyclic garbage collector off while a big document is built, then restore it.

    PyYAML and msgspec allocate millions of small containers and no cycles; with the collector on,
    each generation-2 pass walks everything built so far, which made loading superlinear (10k
    packages: 4.5 s with it on, 1.95 s off). Nested and concurrent pauses (the TUI loads in
    threads) share one counter, so the collector is restored only when the last one ends, and only
    if it was on before the first began.
    """
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


_YAML_KINDS = {
    "str": "a YAML string",
    "list": "a YAML list",
    "int": "a YAML number",
    "float": "a YAML number",
    "bool": "a YAML boolean",
}


def from_builtins(data: Any, name: str = "<snapshot>", text: str | None = None) -> Snapshot:
    """Check the schema version, migrate, and convert plain data into a Snapshot.

    Raises:
        BadInput: not a mapping, missing/unknown/newer schema, or wrong types.
    """
    if not isinstance(data, dict):
        kind = "empty" if data is None else _YAML_KINDS.get(type(data).__name__, "not a mapping")
        raise BadInput(f"{name}: not an envsnap snapshot (the document is {kind}, expected a mapping)")
    if "report" in data and "verdict" in data:
        # The file is hostile: its own `report` value is only used to pick one of two known names.
        kind = {"envsnap-run": "`envsnap run`", "envsnap-watch": "`envsnap watch`"}.get(
            str(data["report"]), "`envsnap run`/`watch`"
        )
        shown = "REPORT" if name.startswith("<") else name  # <stdin> is no file to open
        raise BadInput(f"{name}: this is an {kind} report, not a snapshot; `envsnap tui {shown}` shows it")
    version = data.get("schema")
    if "schema" not in data:
        raise BadInput(f"{name}: not an envsnap snapshot (no 'schema' version at the top)")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise BadInput(
            f"{name}: unknown snapshot schema {version!r} (expected an integer from 1 to {SCHEMA_VERSION})"
        )
    if version > SCHEMA_VERSION:
        raise BadInput(
            f"{name}: written by a newer envsnap (schema {version}); envsnap {__version__} reads schema "
            f"{SCHEMA_VERSION} and older. Upgrade envsnap to read it."
        )
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data)
        version += 1
        data["schema"] = version
    try:
        return msgspec.convert(data, Snapshot)
    except msgspec.ValidationError as err:
        message = str(err)
        line = _line_of(text, message) if text is not None else None
        where = f":{line}" if line is not None else ""
        raise BadInput(f"{name}{where}: invalid snapshot: {message}") from err


_PATH_IN_ERROR = re.compile(r"- at `\$(?P<path>[^`]*)`")
_PATH_PART = re.compile(r"\.(?P<key>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<index>\d+)\]|\[(?P<quoted>\.\.\.|[^\]]*)\]")


def _line_of(text: str, message: str) -> int | None:
    """Best effort: the line of the node a validation error points at (only runs on errors)."""
    found = _PATH_IN_ERROR.search(message)
    if found is None:
        return None
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    for part in _PATH_PART.finditer(found.group("path")):
        if node is None:
            return None
        if part.group("key") is not None and isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if getattr(k, "value", None) == part.group("key")), None)
        elif part.group("index") is not None and isinstance(node, yaml.SequenceNode):
            index = int(part.group("index"))
            node = node.value[index] if index < len(node.value) else None
        else:
            break
    return None if node is None else int(node.start_mark.line) + 1
