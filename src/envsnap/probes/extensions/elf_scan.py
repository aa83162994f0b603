"""What one ELF shared object needs: DT_NEEDED, DT_RUNPATH/DT_RPATH, and the GPU code it embeds.

pyelftools does the ELF parsing; only headers, the dynamic section and the string table are read,
so a 400 MB ``libtorch_cpu.so`` costs milliseconds. Anything a corrupt or truncated file makes the
parser raise is caught here and recorded as ``error``: the scan of an environment goes on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from elftools.elf.dynamic import DynamicSection, DynamicSegment
from elftools.elf.elffile import ELFFile

from envsnap.probes.extensions import fatbin

ELF_MAGIC = b"\x7fELF"


class ElfFacts(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The linking facts of one file; also the unit of the scan cache."""

    elf: bool = True
    """False for a ``*.so`` name that is not ELF (a linker script, a stub)."""
    needed: tuple[str, ...] = ()
    runpath: tuple[str, ...] = ()
    """DT_RUNPATH, else DT_RPATH, split on ``:``."""
    fatbin: bool = False
    """Whether a CUDA fatbin section is present (true also for a statically linked cudart)."""
    archs: tuple[str, ...] = ()
    error: str | None = None
    """Why an ELF file could not be parsed."""


def is_elf(path: Path) -> bool:
    """Whether the file starts with the ELF magic (four bytes read)."""
    with path.open("rb") as stream:
        return stream.read(4) == ELF_MAGIC


def read_elf(path: Path) -> ElfFacts:
    """Parse one file; never raises for bad content (OSError from opening is the caller's)."""
    with path.open("rb") as stream:
        if stream.read(4) != ELF_MAGIC:
            return ElfFacts(elf=False)
        stream.seek(0)
        try:
            elf = ELFFile(stream)
            needed, runpath, rpath = _dynamic_entries(elf)
            archs: set[str] = set()
            has_fatbin = False
            for section in elf.iter_sections():
                if section.name in fatbin.SECTIONS:
                    has_fatbin = True
                    archs |= fatbin.architectures(stream, section["sh_offset"], section["sh_size"])
        except Exception as err:  # pyelftools raises many types on bad input; all mean "unreadable"
            return ElfFacts(error=f"{type(err).__name__}: {err}"[:300])
    return ElfFacts(
        needed=tuple(needed),
        runpath=tuple(runpath or rpath),
        fatbin=has_fatbin,
        archs=tuple(sorted(archs, key=fatbin.sort_key)),
    )


def _dynamic_entries(elf: ELFFile) -> tuple[list[str], list[str], list[str]]:
    """DT_NEEDED, DT_RUNPATH and DT_RPATH, from the dynamic section (or segment, if sections are stripped)."""
    dynamic: DynamicSection | DynamicSegment | None
    dynamic = next((s for s in elf.iter_sections() if isinstance(s, DynamicSection)), None)
    if dynamic is None:
        dynamic = next((s for s in elf.iter_segments() if isinstance(s, DynamicSegment)), None)
    needed: list[str] = []
    runpath: list[str] = []
    rpath: list[str] = []
    if dynamic is None:
        return needed, runpath, rpath
    for tag in dynamic.iter_tags():
        # pyelftools sets .needed/.runpath/.rpath per tag kind at run time; its stubs don't list them.
        entry: Any = tag
        kind = entry.entry.d_tag
        if kind == "DT_NEEDED":
            needed.append(str(entry.needed))
        elif kind == "DT_RUNPATH":
            runpath.extend(part for part in str(entry.runpath).split(":") if part)
        elif kind == "DT_RPATH":
            rpath.extend(part for part in str(entry.rpath).split(":") if part)
    return needed, runpath, rpath
