"""A version string whose number is past Python's int-conversion limit (4,300 digits) is data, not a crash.

``packaging.version.Version`` raises a plain ValueError for it, not InvalidVersion, so every place that
parses an untrusted version must treat both alike: a hostile snapshot's 200,000-digit driver version
made ``diff`` and ``fleet show`` end in "internal error" (exit 3) before.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from envsnap.snapshot import store
from envsnap.snapshot.finalize import finalize
from tests.fakes.diff_snapshots import make
from tests.security.conftest import run_cli

HUGE = "9" * 200_000


def _write(folder: Path, name: str, driver: str) -> Path:
    snapshot = make(hostname=name)
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.nvidia is not None
    nvidia = msgspec.structs.replace(snapshot.accelerators.nvidia, driver_version=driver)
    snapshot = msgspec.structs.replace(
        snapshot, accelerators=msgspec.structs.replace(snapshot.accelerators, nvidia=nvidia)
    )
    return store.save(finalize(snapshot), folder / f"{name}.yaml")


def test_diff_judges_a_huge_version_number_as_a_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write(tmp_path, "a", "535.54.03")
    hostile = _write(tmp_path, "b", HUGE)
    code, out, err = run_cli(capsys, "diff", str(good), str(hostile), "--json")
    assert code == 1, err
    assert "internal error" not in err
    paths = [change["path"] for change in msgspec.json.decode(out)["changes"]]
    assert "accelerators.nvidia.driver_version" in paths


def test_fleet_show_groups_a_node_with_a_huge_version_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("n1", "n2"):
        _write(tmp_path, name, "535.54.03")
    _write(tmp_path, "n3", HUGE)
    code, out, err = run_cli(capsys, "fleet", "show", str(tmp_path), "--json")
    assert "internal error" not in err
    assert code in (0, 1), err
    assert "n3" in out
