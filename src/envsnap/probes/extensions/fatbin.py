"""Which GPU architectures a CUDA fatbin holds, read from its headers without touching the payloads.

nvcc embeds device code in an ELF section (``.nv_fatbin`` in linked objects, ``__nv_relfatbin`` in
relocatable ones) as a run of fatbins, 8-byte aligned. NVIDIA does not document the format; the
layout below is the one open-source readers agree on (``n-eiling/cuda-fatbin-decompression``
``fatbin-decompress.h``; ``jiegec/fatbinary`` ``src/lib.rs``) and was checked against objects built
by nvcc 13.0 on the development machine:

- fatbin header, 16 bytes: magic ``0xBA55ED50`` (u32), version (u16), header size (u16), size of
  the entries that follow (u64);
- entry header: kind (u16: 1 = PTX, 2 = ELF/SASS cubin, 8 = LTO IR), ? (u16), header size (u32),
  payload size (u64), compressed size (u32), options offset (u32), minor/major (u16 each), **arch**
  (u32 at offset 28, e.g. 90), name offset/length (u32 each), **flags** (u64 at offset 40).

Flag bits measured with nvcc 13.0: ``0x100000`` marks an architecture-specific target (``sm_90a``),
``0x200000`` a family target (``sm_100f``). Payloads may be compressed; only headers are read, so
that does not matter, and a 1 GB fatbin section costs a few thousand small reads.
"""

from __future__ import annotations

import struct
from typing import BinaryIO

MAGIC = 0xBA55ED50
SECTIONS = (".nv_fatbin", "__nv_relfatbin")
_HEADER = struct.Struct("<IHHQ")
_ENTRY = struct.Struct("<HHIQIIHHIIIQ")  # through the flags field: 48 bytes
_KIND_PREFIX = {1: "compute", 2: "sm"}  # LTO IR (8) is neither runnable code nor PTX: not reported
_FLAG_ARCH_SPECIFIC = 0x100000
_FLAG_FAMILY = 0x200000
_MAX_ENTRIES = 1_000_000  # a corrupt size field must not turn into an endless loop


def architectures(stream: BinaryIO, offset: int, size: int) -> set[str]:
    """Architectures (``sm_80``, ``sm_90a``, ``compute_90``) in the fatbins of one section.

    Args:
        stream: the ELF file, opened in binary mode.
        offset: file offset of the section.
        size: section size in bytes.

    Returns:
        The architecture names; reading stops quietly at the first thing that is not a fatbin.
    """
    found: set[str] = set()
    position, budget = 0, _MAX_ENTRIES
    while position + _HEADER.size <= size and budget > 0:
        stream.seek(offset + position)
        raw = stream.read(_HEADER.size)
        if len(raw) < _HEADER.size:
            break
        magic, _version, header_size, body_size = _HEADER.unpack(raw)
        if magic != MAGIC:
            if raw[:8] == bytes(8):  # alignment padding between fatbins
                position += 8
                continue
            break
        entry, end = position + header_size, min(position + header_size + body_size, size)
        while entry + _ENTRY.size <= end and budget > 0:
            budget -= 1
            stream.seek(offset + entry)
            raw = stream.read(_ENTRY.size)
            if len(raw) < _ENTRY.size:
                break
            kind, _, entry_size, payload_size, *_, arch, _, _, flags = _ENTRY.unpack(raw)
            if entry_size < _ENTRY.size:
                break
            name = arch_name(kind, arch, flags)
            if name is not None:
                found.add(name)
            entry += entry_size + payload_size
        position = (end + 7) // 8 * 8
    return found


def arch_name(kind: int, arch: int, flags: int) -> str | None:
    """``sm_90a`` for a cubin entry of arch 90 flagged architecture-specific; None for other kinds."""
    prefix = _KIND_PREFIX.get(kind)
    if prefix is None or not 10 <= arch < 1000:
        return None
    suffix = "a" if flags & _FLAG_ARCH_SPECIFIC else "f" if flags & _FLAG_FAMILY else ""
    return f"{prefix}_{arch}{suffix}"


def sort_key(name: str) -> tuple[int, str, int]:
    """Order ``sm_80 < sm_90 < compute_90 < sm_90a < sm_100``: by number, then suffix, SASS before PTX."""
    prefix, _, rest = name.partition("_")
    digits = "".join(ch for ch in rest if ch.isdigit())
    return (int(digits or 0), rest[len(digits) :], 0 if prefix == "sm" else 1)
