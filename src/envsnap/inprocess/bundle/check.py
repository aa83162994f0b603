"""Read a record bundle distrustfully, torch-free: everything is checked before anything is loaded.

A bundle comes from another machine, so it is hostile until proven otherwise. Refused, as BadInput
(exit 2, one line naming the member):
- any member that is not one of bundle_model.MEMBERS, and pickle wherever it hides (a ``.pkl``/
  ``.pt`` member, or pickle or torch.save bytes inside a ``.safetensors`` name);
- symlinks, special files, sub-folders; in a zip: absolute or ``..`` names, duplicates, symlink
  entries, and members whose declared size or compression ratio is out of bounds (zip bombs);
- safetensors files whose header is not exactly what the format allows: the header length, the
  JSON (duplicate keys refused), each tensor's dtype, shape and offsets, and offsets that don't
  tile the data exactly (so truncated files and huge shapes that the data can't back are caught
  here, not inside the safetensors library);
- a manifest that doesn't parse into bundle_model.Manifest, or whose size/sha256 of a member, or
  list of kept tensors, disagrees with the members.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from envsnap.errors import BadInput
from envsnap.inprocess.bundle.model import (
    ACTIVATIONS,
    ENVIRONMENT,
    GOLDEN,
    INPUTS,
    MANIFEST,
    MEMBERS,
    Manifest,
)
from envsnap.snapshot.files import check_zip_directory

MAX_MANIFEST_BYTES = 64 * 1024 * 1024
MAX_ENVIRONMENT_BYTES = 32 * 1024 * 1024
MAX_TENSOR_FILE_BYTES = 16 * 1024**3
MAX_TOTAL_BYTES = 32 * 1024**3
MAX_HEADER_BYTES = 100 * 1000 * 1000
"""The safetensors library's own limit on the JSON header."""
MAX_ZIP_RATIO = 200
"""Largest uncompressed/compressed ratio accepted for a zip member over 1 MB."""
MAX_DIMS = 64

DTYPE_BYTES = {
    "BOOL": 1,
    "U8": 1,
    "I8": 1,
    "F8_E5M2": 1,
    "F8_E4M3": 1,
    "I16": 2,
    "U16": 2,
    "F16": 2,
    "BF16": 2,
    "I32": 4,
    "U32": 4,
    "F32": 4,
    "I64": 8,
    "U64": 8,
    "F64": 8,
}
"""safetensors dtypes this reader accepts, and their element sizes."""

_PICKLE_SUFFIXES = (".pkl", ".pickle", ".pt", ".pth", ".bin", ".ckpt", ".npy", ".npz", ".joblib")


def _caps(name: str) -> int:
    if name == MANIFEST:
        return MAX_MANIFEST_BYTES
    if name == ENVIRONMENT:
        return MAX_ENVIRONMENT_BYTES
    return MAX_TENSOR_FILE_BYTES


def _refuse_unknown(bundle: str, name: str) -> None:
    if name.lower().endswith(_PICKLE_SUFFIXES):
        raise BadInput(
            f"{bundle}: member {name!r} looks like pickle data; bundles never hold pickle, refusing it"
        )
    raise BadInput(f"{bundle}: unexpected member {name!r} (a bundle holds only {', '.join(MEMBERS)})")


@dataclass
class TensorHeader:
    """A validated safetensors header: tensor name → (dtype, shape, nbytes)."""

    tensors: dict[str, tuple[str, tuple[int, ...], int]] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass
class CheckedBundle:
    """A bundle that passed every check: its manifest and the raw bytes of its members."""

    path: str
    manifest: Manifest
    members: dict[str, bytes]
    headers: dict[str, TensorHeader]

    @property
    def environment_text(self) -> str | None:
        data = self.members.get(ENVIRONMENT)
        return None if data is None else data.decode("utf-8", errors="replace")


def _declared_sizes(manifest: bytes | None) -> dict[str, int] | None:
    """Member sizes the manifest lists (None when it doesn't decode: check_bundle then says why)."""
    if manifest is None:
        return None
    try:
        files = msgspec.json.decode(manifest, type=Manifest).files
    except (msgspec.DecodeError, RecursionError):
        return None
    return {entry.name: entry.size_bytes for entry in files}


def _check_declared(bundle: str, name: str, size: int, declared: dict[str, int] | None) -> None:
    """Refuse a member whose size is not the manifest's, before a byte of it is read.

    A 20 KB bundle folder with a sparse 2 GB member used 2.1 GB before the sha256 check refused
    it; the size the manifest declares is known up front.
    """
    if declared is None or name == MANIFEST:
        return
    if name not in declared:
        raise BadInput(f"{bundle}: member {name!r} is not listed in the manifest")
    if declared[name] != size:
        raise BadInput(
            f"{bundle}: member {name!r} is {size} bytes, the manifest says {declared[name]}; refusing it"
        )


def _read_dir(path: Path, bundle: str) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    total = 0
    listing = sorted(os.scandir(path), key=lambda e: (e.name != MANIFEST, e.name))  # the manifest first
    declared: dict[str, int] | None = None
    for entry in listing:
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            raise BadInput(f"{bundle}: member {entry.name!r} is a symlink; refusing the bundle")
        if entry.name not in MEMBERS:
            _refuse_unknown(bundle, entry.name)
        if not stat.S_ISREG(info.st_mode):
            raise BadInput(f"{bundle}: member {entry.name!r} is not a regular file")
        cap = _caps(entry.name)
        if info.st_size > cap:
            raise BadInput(f"{bundle}: member {entry.name!r} is larger than {cap} bytes; refusing it")
        total += info.st_size
        if total > MAX_TOTAL_BYTES:
            raise BadInput(f"{bundle}: bundle is larger than {MAX_TOTAL_BYTES} bytes; refusing it")
        _check_declared(bundle, entry.name, info.st_size, declared)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        fd = os.open(path / entry.name, flags)
        with os.fdopen(fd, "rb") as handle:
            if entry.name != MANIFEST and entry.name != ENVIRONMENT:
                _check_tensor_head(handle, info.st_size, f"{bundle}/{entry.name}")
            data = handle.read(min(cap, info.st_size) + 1)  # not cap: read(n) allocates n up front
        if len(data) != info.st_size:
            raise BadInput(f"{bundle}: member {entry.name!r} changed size while it was read")
        members[entry.name] = data
        if entry.name == MANIFEST:
            declared = _declared_sizes(data)
    return members


def _check_tensor_head(handle: Any, size: int, name: str) -> None:
    """Validate a safetensors member's header against the file's size before its data is read."""
    head = handle.read(8)
    if len(head) == 8:
        (length,) = struct.unpack("<Q", head)
        if length <= min(MAX_HEADER_BYTES, size - 8):
            _parse_header(head + handle.read(length), size, name)
    handle.seek(0)


MAX_ZIP_DIRECTORY_BYTES = 64 * 1024
"""A bundle zip lists at most five members: its directory of entries is a few hundred bytes."""
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    NotImplementedError,
    RuntimeError,
    EOFError,
    OSError,
    ValueError,
)
"""What zipfile raises on a hostile archive: corrupt or unsupported compressed data (zlib.error,
NotImplementedError for a method or a "version needed" it lacks), encryption (RuntimeError)."""


def _read_zip(path: Path, bundle: str) -> dict[str, bytes]:
    try:
        with open(path, "rb") as handle:
            check_zip_directory(
                handle, bundle, max_entries=len(MEMBERS), max_directory_bytes=MAX_ZIP_DIRECTORY_BYTES
            )
            return _read_zip_members(zipfile.ZipFile(handle), bundle)
    except BadInput:
        raise
    except ZIP_ERRORS as err:
        raise BadInput(f"{bundle}: not a readable zip bundle ({' '.join(str(err).split())})") from None


def _read_zip_members(archive: zipfile.ZipFile, bundle: str) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    total = 0
    declared: dict[str, int] | None = None
    with archive:
        infos = sorted(archive.infolist(), key=lambda i: i.filename != MANIFEST)  # the manifest first
        for info in infos:
            name = info.filename
            if name.startswith(("/", "\\")) or ".." in name.replace("\\", "/").split("/") or "/" in name:
                raise BadInput(f"{bundle}: zip member {name!r} points outside the bundle (path traversal)")
            if stat.S_ISLNK(info.external_attr >> 16):
                raise BadInput(f"{bundle}: zip member {name!r} is a symlink; refusing the bundle")
            if name not in MEMBERS:
                _refuse_unknown(bundle, name)
            if name in members:
                raise BadInput(f"{bundle}: zip member {name!r} appears twice")
            cap = _caps(name)
            if info.file_size > cap:
                raise BadInput(f"{bundle}: zip member {name!r} declares {info.file_size} bytes; refusing it")
            if info.file_size > 1024 * 1024 and info.file_size > MAX_ZIP_RATIO * max(info.compress_size, 1):
                raise BadInput(
                    f"{bundle}: zip member {name!r} expands {info.file_size // max(info.compress_size, 1)}× "
                    "(a zip bomb?); refusing it"
                )
            total += info.file_size
            if total > MAX_TOTAL_BYTES:
                raise BadInput(f"{bundle}: bundle expands past {MAX_TOTAL_BYTES} bytes; refusing it")
            _check_declared(bundle, name, info.file_size, declared)
            try:
                with archive.open(info) as handle:
                    data = handle.read(info.file_size + 1)
            except ZIP_ERRORS as err:
                raise BadInput(
                    f"{bundle}: zip member {name!r} is corrupt ({' '.join(str(err).split())})"
                ) from None
            if len(data) != info.file_size:
                raise BadInput(f"{bundle}: zip member {name!r} is not the size its entry declares")
            members[name] = data
            if name == MANIFEST:
                declared = _declared_sizes(data)
    return members


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


_PICKLE_PROTOCOLS = (2, 3, 4, 5)


def _refuse_foreign(data: bytes, name: str) -> None:
    """Name pickle and torch.save data (a zip) when that is what a non-safetensors member holds."""
    if data[:4] == b"PK\x03\x04":
        raise BadInput(f"{name}: holds pickle/torch.save data (a zip archive), not safetensors; refusing it")
    if len(data) >= 2 and data[0] == 0x80 and data[1] in _PICKLE_PROTOCOLS:
        raise BadInput(f"{name}: holds pickle/torch.save data, not safetensors; refusing it")


def check_tensor_file(data: bytes, name: str) -> TensorHeader:
    """Validate a safetensors file's header against its data, without the safetensors library.

    The structure decides: an 8-byte little-endian header length that fits the file, then a JSON
    object. Pickle and torch.save bytes fail that and are named as what they are.

    Raises:
        BadInput: pickle or zip bytes, a header that isn't the format, or offsets the data can't back.
    """
    return _parse_header(data, len(data), name)


def _parse_header(data: bytes, file_size: int, name: str) -> TensorHeader:
    """The checks of ``check_tensor_file``, given the header bytes and the whole file's size."""
    if len(data) < 8:
        _refuse_foreign(data, name)
        raise BadInput(f"{name}: truncated (no safetensors header)")
    (size,) = struct.unpack("<Q", data[:8])
    if size > MAX_HEADER_BYTES or size > file_size - 8 or size > len(data) - 8 or data[8:9] != b"{":
        # Not a safetensors header. Only now is the content's own signature asked about: a header
        # length of 128 mod 256 makes a valid file start with 0x80 too, so a first byte proves nothing.
        _refuse_foreign(data, name)
        raise BadInput(f"{name}: safetensors header claims {size} bytes, the file has {file_size - 8}")
    try:
        header = json.loads(data[8 : 8 + size].decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError) as err:
        raise BadInput(f"{name}: safetensors header is not valid JSON ({err})") from None
    except RecursionError:
        raise BadInput(f"{name}: safetensors header is nested too deeply") from None
    if not isinstance(header, dict):
        raise BadInput(f"{name}: safetensors header is not a JSON object")
    result = TensorHeader()
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in meta.items()
    ):
        raise BadInput(f"{name}: safetensors __metadata__ must map strings to strings")
    _refuse_surrogates(name, meta, header)
    result.metadata = meta
    data_len = file_size - 8 - size
    spans: list[tuple[int, int, str]] = []
    for key, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise BadInput(f"{name}: tensor {key!r}: entry must have exactly dtype, shape, data_offsets")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype not in DTYPE_BYTES:
            raise BadInput(f"{name}: tensor {key!r}: dtype {str(dtype)[:20]!r} not accepted")
        if (
            not isinstance(shape, list)
            or len(shape) > MAX_DIMS
            or not all(type(d) is int and 0 <= d < 2**48 for d in shape)
        ):
            raise BadInput(f"{name}: tensor {key!r}: shape is not a list of sane non-negative integers")
        if not isinstance(offsets, list) or len(offsets) != 2 or not all(type(o) is int for o in offsets):
            raise BadInput(f"{name}: tensor {key!r}: data_offsets must be two integers")
        start, end = offsets
        numel = 1
        for dim in shape:
            numel *= dim
        nbytes = numel * DTYPE_BYTES[dtype]
        if not 0 <= start <= end <= data_len:
            raise BadInput(
                f"{name}: tensor {key!r}: offsets {start}..{end} outside the {data_len} data bytes "
                "(truncated file, or a forged header)"
            )
        if end - start != nbytes:
            raise BadInput(
                f"{name}: tensor {key!r}: shape {shape} needs {nbytes} bytes, offsets give {end - start}"
            )
        spans.append((start, end, key))
        result.tensors[key] = (dtype, tuple(shape), nbytes)
    position = 0
    for start, end, key in sorted(spans):
        if start != position:
            raise BadInput(f"{name}: tensor {key!r}: overlapping or gapped data offsets")
        position = end
    if position != data_len:
        raise BadInput(f"{name}: {data_len - position} bytes after the last tensor")
    return result


def _refuse_surrogates(name: str, meta: dict[str, str], header: dict[str, Any]) -> None:
    """Tensor names and metadata must be UTF-8: JSON's ``"\\ud800"`` decodes to a lone surrogate
    that passed here and then made safetensors raise inside ``verify()``."""
    for text in (*header, *meta, *meta.values()):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            shown = text.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")[:80]
            raise BadInput(
                f"{name}: name or metadata {shown!r} is not UTF-8 text (a lone surrogate)"
            ) from None


def check_bundle(path: str | Path) -> CheckedBundle:
    """Read and validate a whole bundle (directory or zip); nothing is deserialized past JSON.

    Raises:
        BadInput: anything a hostile or broken bundle could hold (see the module docstring).
    """
    bundle = str(path)
    where = Path(path)
    try:
        info = os.lstat(where)
    except OSError as err:
        raise BadInput(f"{bundle}: cannot open bundle: {err.strerror or err}") from None
    if stat.S_ISLNK(info.st_mode):
        raise BadInput(f"{bundle}: is a symlink; give the bundle itself")
    if stat.S_ISDIR(info.st_mode):
        members = _read_dir(where, bundle)
    elif stat.S_ISREG(info.st_mode):
        members = _read_zip(where, bundle)
    else:
        raise BadInput(f"{bundle}: not a directory or a zip file")
    if MANIFEST not in members:
        raise BadInput(f"{bundle}: no {MANIFEST}; not an envsnap record bundle")
    try:
        manifest = msgspec.json.decode(members[MANIFEST], type=Manifest)
    except msgspec.DecodeError as err:
        raise BadInput(f"{bundle}: {MANIFEST} is not a valid bundle manifest: {err}") from None
    except RecursionError:
        raise BadInput(f"{bundle}: {MANIFEST} is nested too deeply to be a bundle manifest") from None
    if manifest.schema > 1:
        raise BadInput(f"{bundle}: bundle schema {manifest.schema} is newer than this envsnap reads (1)")
    headers: dict[str, TensorHeader] = {}
    for name in (INPUTS, ACTIVATIONS, GOLDEN):
        if name in members:
            headers[name] = check_tensor_file(members[name], f"{bundle}/{name}")
    if ENVIRONMENT in members and b"\x00" in members[ENVIRONMENT]:
        raise BadInput(f"{bundle}/{ENVIRONMENT}: binary data, not a snapshot")
    _check_files(bundle, manifest, members)
    _check_kept(bundle, manifest, headers)
    return CheckedBundle(path=bundle, manifest=manifest, members=members, headers=headers)


def _check_files(bundle: str, manifest: Manifest, members: dict[str, bytes]) -> None:
    listed = {entry.name: entry for entry in manifest.files}
    for name, data in members.items():
        if name == MANIFEST:
            continue
        entry = listed.get(name)
        if entry is None:
            raise BadInput(f"{bundle}: member {name!r} is not listed in the manifest")
        if entry.size_bytes != len(data) or entry.sha256 != hashlib.sha256(data).hexdigest():
            raise BadInput(
                f"{bundle}: member {name!r} does not match the manifest's size/sha256 (truncated?)"
            )
    missing = sorted(set(listed) - set(members))
    if missing:
        raise BadInput(f"{bundle}: members listed in the manifest are missing: {', '.join(missing)}")


def _check_kept(bundle: str, manifest: Manifest, headers: dict[str, TensorHeader]) -> None:
    kept = headers.get(ACTIVATIONS, TensorHeader()).tensors
    golden = headers.get(GOLDEN, TensorHeader()).tensors
    leaves = [leaf for call in manifest.calls for leaf in call.outputs]
    leaves += [leaf for tap in manifest.taps for leaf in tap.leaves]
    for leaf in leaves:
        if leaf.kept and leaf.key not in kept:
            raise BadInput(f"{bundle}: tensor {leaf.key!r} is marked kept but is not in {ACTIVATIONS}")
        if leaf.golden_kept and leaf.key not in golden:
            raise BadInput(f"{bundle}: golden tensor {leaf.key!r} is marked kept but is not in {GOLDEN}")
