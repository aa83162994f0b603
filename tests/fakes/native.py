"""Tiny ELF shared objects built with gcc: stand-ins for CUDA/ROCm libraries and the extensions linking them.

The stubs carry the real sonames (``libcudart.so.12``, ``libamdhip64.so.6``) and nothing else, so an
object linked against them gets exactly the DT_NEEDED / DT_RUNPATH entries a real extension has,
and ctypes can load them into a process (``/proc/self/maps``). gcc is on every development and CI
machine (toolchain-notes.md).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

STUB_SOURCE = "int envsnap_stub_symbol(void) { return 0; }\n"


def build_shared_object(
    target: Path,
    *,
    soname: str | None = None,
    link: Sequence[Path] = (),
    rpath: str | None = None,
    source: str = STUB_SOURCE,
) -> Path:
    """Compile ``source`` into the shared object ``target``.

    Args:
        target: the file to write (its folder is created).
        soname: DT_SONAME to give it, e.g. ``libcudart.so.12``.
        link: libraries to name in DT_NEEDED (by file name, so by their soname when it matches).
        rpath: a DT_RUNPATH entry, e.g. ``$ORIGIN/../nvidia/cuda_runtime/lib``.
        source: the C source.

    Returns:
        ``target``.
    """
    compiler = shutil.which("gcc")
    assert compiler is not None, "gcc is needed to build the test's stub shared objects"
    target.parent.mkdir(parents=True, exist_ok=True)
    source_file = target.with_name(target.name + ".c")
    source_file.write_text(source, encoding="utf-8")
    argv = [compiler, "-shared", "-fPIC", "-o", str(target), str(source_file)]
    if soname is not None:
        argv.append(f"-Wl,-soname,{soname}")
    if rpath is not None:
        argv += ["-Wl,--enable-new-dtags", f"-Wl,-rpath,{rpath}"]
    if link:
        # --no-as-needed: the stub source uses no symbol, and the DT_NEEDED entry is the point.
        argv.append("-Wl,--no-as-needed")
        for library in link:
            argv += [f"-L{library.parent}", f"-l:{library.name}"]
    subprocess.run(argv, check=True, capture_output=True, text=True)
    source_file.unlink()
    return target


def write_dist_info(site: Path, name: str, version: str, files: Sequence[str]) -> Path:
    """A minimal ``<name>-<version>.dist-info`` with METADATA and a RECORD listing ``files``."""
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n", encoding="utf-8"
    )
    record = [*files, f"{folder.name}/METADATA", f"{folder.name}/RECORD"]
    (folder / "RECORD").write_text("".join(f"{path},,\n" for path in record), encoding="utf-8")
    return folder
