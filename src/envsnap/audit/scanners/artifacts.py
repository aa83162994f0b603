"""Model files: what format, which dtypes, and what ties them to NVIDIA, read from headers only.

Nothing is unpickled and no weights are loaded: a safetensors header is JSON after an 8-byte
length; a ``torch.save`` checkpoint is a zip whose pickle names the storage locations
(``cuda:0``) as plain strings, searched as bytes; a TorchScript archive carries its code as text
(``code/*.py``) where pinned devices show; ONNX and GGUF headers are parsed field by field
(onnx_proto.py; the GGUF key/value header). A TensorRT engine is compiled for one NVIDIA GPU
and TensorRT release: its extension says enough.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import struct
import zipfile
from collections import Counter
from typing import BinaryIO

from envsnap.audit.file_read import regular_fd
from envsnap.audit.model import Signal
from envsnap.audit.scanners.onnx_proto import read_header
from envsnap.snapshot.files import check_zip_directory

MAX_HEADER_BYTES = 16 * 1024 * 1024
"""Largest safetensors JSON header read (the format allows 100 MB; real ones are a few MB)."""
MAX_PICKLE_BYTES = 64 * 1024 * 1024
"""Largest checkpoint pickle searched for device names."""
MAX_ZIP_ENTRIES = 65_536
"""A torch.save zip holds one entry per storage: thousands for the largest models."""
MAX_ZIP_DIRECTORY_BYTES = 8 * 1024 * 1024
"""The zip's list of entries (about 80 bytes each in a checkpoint), read whole by zipfile."""
_CUDA_LOCATION = re.compile(rb"cuda(?::\d+)?")
_ZIP_MAGIC = b"PK\x03\x04"


class NotAModel(ValueError):
    """A file with a model's extension that is something else (``.bin`` is a common name)."""


def scan_artifact(path: str, relative: str) -> Signal | None:
    """One signal describing a model file, or None for a ``.bin`` that is no checkpoint.

    Raises:
        OSError: unreadable. ValueError: malformed (the caller records it as skipped).
    """
    suffix = os.path.splitext(relative.lower())[1]
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if suffix in (".engine", ".plan", ".trt"):
            return _signal(relative, "tensorrt-engine", (f"bytes={size}",))
        head = handle.read(16)
        if suffix == ".safetensors":
            return _signal(relative, "safetensors", _safetensors(handle, head))
        if suffix == ".gguf":
            return _signal(relative, "gguf", _gguf(handle, head))
        if suffix == ".onnx":
            return _signal(relative, "onnx", _onnx(handle, size))
        return _torch_file(handle, relative, head)


def open_regular(path: str) -> BinaryIO:
    """The file opened for reading, refused unless it is a regular file (``file_read.regular_fd``).

    Every reader below reads this one handle, so the file checked is the file read.
    """
    fd = regular_fd(path)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _signal(relative: str, subject: str, detail: tuple[str, ...]) -> Signal:
    return Signal(
        kind="artifact", layer="artifacts", file=relative, subject=subject, code=subject, detail=detail
    )


def _safetensors(handle: object, head: bytes) -> tuple[str, ...]:
    if len(head) < 8:
        raise ValueError("shorter than a safetensors header")
    (length,) = struct.unpack("<Q", head[:8])
    if length > MAX_HEADER_BYTES:
        raise ValueError(f"header of {length} bytes is larger than {MAX_HEADER_BYTES}")
    handle.seek(8)  # type: ignore[attr-defined]
    raw = handle.read(length)  # type: ignore[attr-defined]
    if len(raw) != length:
        raise ValueError("truncated header")
    header = json.loads(raw.decode("utf-8"))
    if not isinstance(header, dict):
        raise ValueError("header is not a JSON object")
    dtypes = Counter(
        str(entry.get("dtype"))[:16]
        for name, entry in header.items()
        if name != "__metadata__" and isinstance(entry, dict)
    )
    return (f"dtypes={','.join(sorted(dtypes))}", f"tensors={sum(dtypes.values())}")


def _gguf(handle: object, head: bytes) -> tuple[str, ...]:
    if head[:4] != b"GGUF" or len(head) < 16:
        raise ValueError("no GGUF magic")
    (version,) = struct.unpack("<I", head[4:8])
    detail = [f"gguf_version={version}"]
    if version < 2:
        return tuple(detail)
    handle.seek(8)  # type: ignore[attr-defined]
    counts = handle.read(16)  # type: ignore[attr-defined]
    if len(counts) < 16:
        raise ValueError("truncated GGUF header")
    tensors, kv_count = struct.unpack("<QQ", counts)
    detail.append(f"tensors={tensors}")
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def read(n: int) -> bytes:
        data = handle.read(n)  # type: ignore[attr-defined]
        if len(data) != n:
            raise ValueError("truncated GGUF metadata")
        return bytes(data)

    def string() -> str:
        (n,) = struct.unpack("<Q", read(8))
        if n > 1 << 20:
            raise ValueError("GGUF string too long")
        return read(n).decode("utf-8", errors="replace")

    for _ in range(min(kv_count, 64)):
        key = string()
        (kind,) = struct.unpack("<I", read(4))
        if kind == 8:
            value = string()
            if key == "general.architecture":
                detail.append(f"architecture={value[:40]}")
        elif kind in sizes:
            raw = read(sizes[kind])
            if key == "general.file_type" and kind == 4:
                detail.append(f"file_type={struct.unpack('<I', raw)[0]}")
        else:
            break  # an array (the tokenizer's vocabulary): the general.* keys come before it
    return tuple(detail)


def _onnx(handle: object, size: int) -> tuple[str, ...]:
    if size == 0:
        raise ValueError("empty file")
    with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:  # type: ignore[attr-defined]
        view = memoryview(mapped)
        try:
            header = read_header(view)
        finally:
            view.release()  # the map can only close once no view of it is left
    default = header.opsets.get("", header.opsets.get("ai.onnx"))
    detail = [f"ir_version={header.ir_version}", f"opset={default}"]
    custom = sorted({op.split("::")[0] for op in header.custom_ops})
    if custom:
        detail.append(f"custom_domains={','.join(d[:40] for d in custom)}")
        detail.append(f"custom_ops={','.join(op[:60] for op, _ in header.custom_ops.most_common(5))}")
    detail.append(f"nodes={sum(header.op_domains.values())}")
    return tuple(detail)


def _torch_file(handle: BinaryIO, relative: str, head: bytes) -> Signal | None:
    if head.startswith(_ZIP_MAGIC):
        return _torch_zip(handle, relative)
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        handle.seek(0)
        data = handle.read(MAX_PICKLE_BYTES)
        return _signal(relative, "torch-checkpoint", ("format=legacy-pickle", *_locations(data)))
    if relative.lower().endswith((".pt", ".pth", ".ckpt")):
        raise ValueError("neither a zip nor a pickle")
    return None


def _torch_zip(handle: BinaryIO, relative: str) -> Signal:
    # Sized up from the end record first: zipfile would parse every entry before anyone counts them.
    check_zip_directory(
        handle, "checkpoint", max_entries=MAX_ZIP_ENTRIES, max_directory_bytes=MAX_ZIP_DIRECTORY_BYTES
    )
    try:
        archive = zipfile.ZipFile(handle)
    except zipfile.BadZipFile as err:
        raise ValueError(f"bad zip: {err}") from err
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ZIP_ENTRIES:
            raise ValueError(f"more than {MAX_ZIP_ENTRIES} zip entries")
        names = [info.filename for info in infos]
        torchscript = any("/code/" in n for n in names) and any(n.endswith("constants.pkl") for n in names)
        budget = MAX_PICKLE_BYTES
        pinned = Counter[str]()
        for info in infos:
            name = info.filename
            interesting = name.endswith(("data.pkl", "constants.pkl")) or (
                torchscript and "/code/" in name and name.endswith(".py")
            )
            if not interesting or info.file_size > budget:
                continue
            budget -= info.file_size
            with archive.open(info) as member:
                data = member.read(info.file_size + 1)
            for found in _CUDA_LOCATION.findall(data):
                pinned[found.decode()] += 1
    kind = "torchscript" if torchscript else "torch-checkpoint"
    detail = ["format=zip"]
    if pinned:
        detail.append(f"cuda_locations={','.join(sorted(pinned))}")
    return _signal(relative, kind, tuple(detail))


def _locations(data: bytes) -> tuple[str, ...]:
    found = sorted({m.decode() for m in _CUDA_LOCATION.findall(data)})
    return (f"cuda_locations={','.join(found)}",) if found else ()
