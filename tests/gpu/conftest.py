"""tests/gpu: run only where an NVIDIA GPU really is; skipped elsewhere, saying why.

Everything else in the suite replays recorded hardware; these tests are the check that the real
thing agrees (real NVML through nvidia-ml-py, a real CUDA build of torch on a real device). A GPU
counts as present when NVML initialises and lists a device *and* torch (in a subprocess, so this
conftest stays cheap) says ``torch.cuda.is_available()``. ``scripts/gpu-check.sh`` runs them.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@functools.cache
def missing_gpu() -> str | None:
    """Why this machine can't run tests/gpu, or None when it can."""
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            count = pynvml.nvmlDeviceGetCount()
        finally:
            pynvml.nvmlShutdown()
    except Exception as err:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...: no usable GPU
        return f"no NVIDIA GPU here: NVML did not initialise ({type(err).__name__}: {err})"
    if count == 0:
        return "no NVIDIA GPU here: NVML lists no device"
    done = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.cuda.is_available(), torch.version.cuda)"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        return f"NVML sees {count} GPU(s), but torch does not import: {done.stderr.strip()[-200:]}"
    if not done.stdout.startswith("True"):
        build = done.stdout.split()[-1]
        return f"NVML sees {count} GPU(s), but torch.cuda.is_available() is False (CUDA build: {build})"
    return None


@pytest.fixture(autouse=True)
def _needs_a_gpu() -> None:
    reason = missing_gpu()
    if reason is not None:
        pytest.skip(f"{reason}; tests/gpu runs only on a GPU host (scripts/gpu-check.sh)")


@pytest.fixture
def artifacts() -> Path | None:
    """Where a run on real hardware leaves what it recorded ($ENVSNAP_GPU_ARTIFACTS), if set."""
    folder = os.environ.get("ENVSNAP_GPU_ARTIFACTS")
    if not folder:
        return None
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    return path


def keep(path: Path, artifacts: Path | None) -> None:
    """Copy a file a test recorded into the artifacts folder (for snapshots/examples/)."""
    if artifacts is not None:
        shutil.copy2(path, artifacts / path.name)


ENVSNAP = [sys.executable, "-m", "envsnap"]


def envsnap(*args: str, cwd: Path, timeout_s: float = 300) -> subprocess.CompletedProcess[str]:
    """``envsnap ARGS`` as a user runs it."""
    return subprocess.run(
        [*ENVSNAP, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout_s, check=False
    )
