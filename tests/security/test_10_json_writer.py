"""10. One ASCII-safe JSON writer: no raw C1/bidi character in any command's ``--json``."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from envsnap.snapshot import store
from tests.fakes.diff_snapshots import make
from tests.security.conftest import run_cli

HOSTILE = "gpu\x9b31m\u202eevil\x1b[2J"


def _hostile_file(tmp_path: Path) -> Path:
    """Hostile text where findings quote it as evidence (environment, torch build), and in the host."""
    snapshot = make(
        variables={
            "CUDA_VISIBLE_DEVICES": HOSTILE,
            "LD_LIBRARY_PATH": "/x" + HOSTILE,
            "PYTORCH_CUDA_ALLOC_CONF": HOSTILE,
        }
    )
    assert snapshot.host is not None
    assert snapshot.frameworks is not None
    assert snapshot.frameworks.torch is not None
    torch = msgspec.structs.replace(
        snapshot.frameworks.torch, cuda="11." + HOSTILE, arch_list=("sm_" + HOSTILE,)
    )
    hostile = msgspec.structs.replace(
        snapshot,
        host=msgspec.structs.replace(snapshot.host, hostname=HOSTILE),
        frameworks=msgspec.structs.replace(snapshot.frameworks, torch=torch),
    )
    path = tmp_path / "hostile.yaml"
    path.write_text(store.dumps(hostile))
    return path


def test_every_json_output_is_ascii(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _hostile_file(tmp_path)
    clean = tmp_path / "clean.yaml"
    clean.write_text(store.dumps(make()))
    for argv in (
        ["show", str(path), "--json"],
        ["check", str(path), "--json"],
        ["check", str(path), "--json", "--against", str(clean)],
        ["diff", str(clean), str(path), "--json"],
        ["diff", str(clean), str(path), str(path), "--json"],
        ["check", "--list-rules", "--json"],
    ):
        code, out, _ = run_cli(capsys, *argv)
        assert code in (0, 1), argv
        assert out.isascii(), argv


def test_run_report_json_is_ascii() -> None:
    from tests.fakes.run_reports import fallback_on_t4

    report = msgspec.structs.replace(fallback_on_t4(), summary=HOSTILE)
    assert report.to_json().isascii()
    assert "\n" not in report.to_json()
