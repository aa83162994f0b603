"""Write a record bundle: a directory, or one zip file when the path ends in ``.zip``. Torch-free.

Atomic either way: a directory is filled under a temporary name beside the target and renamed
into place (an existing bundle there is replaced only once the new one is complete); a zip goes
through store's temp-file writer discipline (temp file, fsync, rename). Members are stored
uncompressed in the zip: safetensors data barely compresses, and stored members can be read
without inflating.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import msgspec

from envsnap.errors import BadInput
from envsnap.inprocess.bundle.model import MANIFEST, FileEntry, Manifest


def write_bundle(path: str | Path, manifest: Manifest, members: dict[str, bytes]) -> Path:
    """Write ``members`` and the manifest (with their sizes and sha256) to ``path``; the path."""
    target = Path(path)
    files = tuple(
        FileEntry(name=name, size_bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
        for name, data in sorted(members.items())
    )
    manifest = msgspec.structs.replace(manifest, files=files)
    everything = {MANIFEST: msgspec.json.format(msgspec.json.encode(manifest), indent=1), **members}
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise BadInput(f"{target}: folder {parent} does not exist")
    if target.suffix == ".zip":
        _write_zip(target, everything)
    else:
        _write_dir(target, everything)
    return target


def _write_zip(target: Path, members: dict[str, bytes]) -> None:
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
                for name, data in members.items():
                    archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _write_dir(target: Path, members: dict[str, bytes]) -> None:
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise BadInput(f"{target}: exists and is not a bundle directory; not replacing it")
    if target.is_dir() and any(target.iterdir()) and not (target / MANIFEST).is_file():
        raise BadInput(f"{target}: a non-empty folder that is not a bundle; not replacing it")
    temp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        for name, data in members.items():
            with open(temp / name, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        if target.exists():
            old = target.with_name(f".{target.name}.old-{os.getpid()}")
            os.replace(target, old)
            os.replace(temp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(temp, target)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
