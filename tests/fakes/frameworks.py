"""Fake framework installs for the framework probe: package trees from tests/data/frameworks on PYTHONPATH.

The probe runs the real target interpreter (this venv's Python) as a child; the fakes shadow the
installed torch through ``PYTHONPATH`` in the child's environment only, exactly as a user's
``PYTHONPATH`` would. Trees are copied into a temporary ``site-packages`` folder (so library
origins classify as "wheel" and nothing is ever written into the repository).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from envsnap.probes.base import ProbeContext

DATA = Path(__file__).resolve().parents[1] / "data" / "frameworks"
BUILDS = DATA / "builds"


def fake_site(tmp_path: Path, *trees: str) -> Path:
    """``tmp_path/site-packages`` holding the contents of the named trees of tests/data/frameworks."""
    site = tmp_path / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    for tree in trees:
        shutil.copytree(DATA / tree, site, dirs_exist_ok=True)
    return site


def framework_context(site: Path, *, build: str | None = None, timeout_s: float = 30.0) -> ProbeContext:
    """A context probing this interpreter with ``site`` first on its path, and a fake torch build if named."""
    environ = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    environ["PYTHONPATH"] = str(site)
    if build is not None:
        environ["FAKE_TORCH_BUILD"] = str(BUILDS / f"{build}.json")
    return ProbeContext(python=sys.executable, environ=environ, timeout_s=timeout_s)
