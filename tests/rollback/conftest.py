"""A real virtual environment for the rollback tests that run pip (one per session: it takes seconds)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from packaging.utils import canonicalize_name


@pytest.fixture(scope="session")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The interpreter of a fresh venv (with pip, from ensurepip: no network needed)."""
    root = tmp_path_factory.mktemp("rollback-venv")
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
    return str(root / "bin" / "python")


def pip(python: str, *args: str) -> None:
    """Run the target's pip quietly; fail the test if pip fails."""
    subprocess.run([python, "-m", "pip", *args, "--disable-pip-version-check", "-q"], check=True, timeout=300)


def installed(python: str) -> dict[str, str]:
    """``pip list`` of the target, as {normalized name: version}: the independent witness."""
    done = subprocess.run(
        [python, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {canonicalize_name(row["name"]): row["version"] for row in json.loads(done.stdout)}
