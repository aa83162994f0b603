"""System cuDNN and NCCL: their version and where they are installed, from headers or library file names.

Headers are read first, since they state the version outright: ``cudnn_version.h`` (cuDNN ≥ 8; the
Debian packages install ``cudnn_version_v9.h`` under the multiarch include directory), or
``cudnn.h`` for cuDNN 7 and older, with ``CUDNN_MAJOR``/``CUDNN_MINOR``/``CUDNN_PATCHLEVEL``; and
``nccl.h`` with ``NCCL_MAJOR``/``NCCL_MINOR``/``NCCL_PATCH``. Without headers (runtime-only
installs), the version in a library's file name (``libcudnn.so.9.1.0``, ``libnccl.so.2.21.5``).
The pip wheels frameworks bundle (``nvidia-cudnn-cu12``...) are the frameworks probe's business.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from envsnap.probes.base import ProbeContext, read_text
from envsnap.probes.toolkits.rocm import display_path


@dataclass(frozen=True)
class Library:
    """What to look for, for one library."""

    headers: tuple[str, ...]
    """File-name patterns of headers that carry the version, in order of preference."""
    macros: tuple[str, str, str]
    """The major, minor and patch macro names."""
    soname: str
    """Library base name, e.g. ``libcudnn.so``."""


CUDNN = Library(
    headers=(r"cudnn_version\.h", r"cudnn_version_v\d+\.h", r"cudnn\.h"),
    macros=("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"),
    soname="libcudnn.so",
)
NCCL = Library(headers=(r"nccl\.h",), macros=("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"), soname="libnccl.so")


@dataclass(frozen=True)
class Found:
    """A library's version and the file it was read from."""

    version: str
    path: str


def _multiarch(ctx: ProbeContext, parent: str) -> list[str]:
    try:
        names = os.listdir(ctx.path(parent))
    except OSError:
        return []
    return [f"{parent}/{name}" for name in sorted(names) if name.endswith(("-linux-gnu", "-linux-gnueabihf"))]


def include_dirs(ctx: ProbeContext, homes: Iterable[Path]) -> list[Path]:
    """Toolkit include directories first, then the system ones."""
    dirs: list[Path] = []
    for home in homes:
        dirs.append(home / "include")
        dirs.extend(sorted((home / "targets").glob("*/include")))
    system = ["/usr/include", *_multiarch(ctx, "/usr/include"), "/usr/local/include"]
    return dirs + [ctx.path(d) for d in system]


def library_dirs(ctx: ProbeContext, homes: Iterable[Path]) -> list[Path]:
    """Toolkit library directories first, then ``LD_LIBRARY_PATH``, then the system ones."""
    dirs: list[Path] = []
    for home in homes:
        dirs.extend([home / "lib64", home / "lib"])
        dirs.extend(sorted((home / "targets").glob("*/lib")))
    ld_path = [
        entry for entry in ctx.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if entry.startswith("/")
    ]
    system = [*ld_path, *_multiarch(ctx, "/usr/lib"), "/usr/lib64", "/usr/lib", "/usr/local/lib"]
    return dirs + [ctx.path(d) for d in system]


def _from_header(text: str, macros: tuple[str, str, str]) -> str | None:
    parts = []
    for macro in macros:
        match = re.search(rf"^\s*#\s*define\s+{macro}\s+(\d+)\b", text, re.MULTILINE)
        if match is None:
            return None
        parts.append(match.group(1))
    return ".".join(parts)


def _listing(directory: Path) -> list[str]:
    try:
        return sorted(os.listdir(directory))
    except OSError:
        return []


def find(ctx: ProbeContext, library: Library, homes: Iterable[Path]) -> Found | None:
    """The first version of ``library`` found in the toolkit trees ``homes`` or the system directories."""
    homes = list(homes)
    for directory in include_dirs(ctx, homes):
        names = _listing(directory)
        for pattern in library.headers:
            for name in (n for n in names if re.fullmatch(pattern, n)):
                version = _from_header(read_text(directory / name) or "", library.macros)
                if version is not None:
                    return Found(version=version, path=display_path(ctx, directory / name))
    soname = re.compile(re.escape(library.soname) + r"\.(\d+\.\d+\.\d+)")
    for directory in library_dirs(ctx, homes):
        for name in _listing(directory):
            match = soname.fullmatch(name)
            if match:
                return Found(version=match.group(1), path=display_path(ctx, directory / name))
    return None
