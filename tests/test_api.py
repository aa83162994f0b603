"""The public Python API: envsnap.collect(), load(), save(), diff(), check(), guard().

Each name must stay callable after the modules behind it are imported (a submodule named like an
API function would otherwise be bound over it on the package).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import envsnap
from tests.factories import make_snapshot


def test_api_round_trip(tmp_path: Path) -> None:
    for module in ("envsnap.collector", "envsnap.compare.diff", "envsnap.api", "envsnap.guard"):
        importlib.import_module(module)
    path = envsnap.save(make_snapshot(), tmp_path / "a.yaml")
    loaded = envsnap.load(path)
    assert envsnap.diff(loaded, loaded) == ()
    findings = envsnap.check(loaded)
    assert "cpu-only-build-on-gpu-host" in {f.id for f in findings}
    assert callable(envsnap.guard)


def test_collect_from_a_fresh_interpreter() -> None:
    code = (
        "import envsnap\n"
        "s = envsnap.collect(frameworks=False)\n"
        "import envsnap.collector\n"
        "t = envsnap.collect(frameworks=False)\n"
        "print(s.fingerprint == t.fingerprint, s.python.status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["True", "ok"]
