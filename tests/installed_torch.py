"""What the installed torch says about itself, so tests expect what this venv really has.

The README's test command installs ``torch==2.13.0``. Here that resolves to the CPU build from a
local wheel (``2.13.0+cpu``); on a machine that only reaches the public package index it resolves
to the CUDA build (``2.13.0``, with the ``nvidia-*`` wheels). Tests of the real framework probe
derive their expectations from torch's own answers, asked in a subprocess (importing torch costs
about a second, and the test process stays free of it), so the suite passes with either.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from dataclasses import dataclass

_QUERY = """
import json, torch
print(json.dumps({
    "version": torch.__version__,
    "cuda": torch.version.cuda,
    "hip": torch.version.hip,
    "cuda_available": torch.cuda.is_available(),
}))
"""


@dataclass(frozen=True)
class InstalledTorch:
    """torch's own answers: ``torch.__version__``, ``torch.version.cuda``/``hip``, ``cuda.is_available()``."""

    version: str
    cuda: str | None
    hip: str | None
    cuda_available: bool

    @property
    def cpu_only(self) -> bool:
        """A build without CUDA or ROCm (the ``+cpu`` wheel)."""
        return self.cuda is None and self.hip is None


@functools.cache
def installed_torch() -> InstalledTorch:
    """Ask this venv's torch, once per test session."""
    done = subprocess.run(
        [sys.executable, "-c", _QUERY], capture_output=True, text=True, check=True, timeout=300
    )
    return InstalledTorch(**json.loads(done.stdout.splitlines()[-1]))
