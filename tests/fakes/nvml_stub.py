"""Build ``nvml_stub.c`` into a ``libnvidia-ml.so.1`` that the real nvidia-ml-py loads.

The stub describes two H100s from a real capture (see the C file's header). Tests point
``LD_LIBRARY_PATH`` at the folder this returns and run envsnap in a subprocess, so ctypes, symbol
suffixes and struct layouts are exercised exactly as on a GPU host.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

STUB_SOURCE = Path(__file__).with_name("nvml_stub.c")


def build_nvml_stub(directory: Path) -> Path:
    """Compile the stub as ``directory/libnvidia-ml.so.1`` and return ``directory``.

    Raises:
        RuntimeError: no C compiler, or the stub does not compile (with the compiler's output).
    """
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise RuntimeError("building the NVML stub needs gcc (present on every development and CI machine)")
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "libnvidia-ml.so.1"
    done = subprocess.run(
        [
            compiler,
            "-shared",
            "-fPIC",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-o",
            str(target),
            str(STUB_SOURCE),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the NVML stub does not compile:\n{done.stderr}")
    return directory
