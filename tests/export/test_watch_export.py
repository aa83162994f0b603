"""``envsnap watch --export DIR`` end to end: a real process watched, its verdict exported as metrics."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envsnap import cli
from tests.export.helpers import node, one, save, series


@pytest.mark.slow
def test_a_watched_process_shows_up_in_the_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "watch"
    folder.mkdir()
    workload = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2)"])
    try:
        code = cli.run(
            ["watch", "--pid", str(workload.pid), "--export", str(folder), "--no-report", "--interval", "0.2"]
        )
    finally:
        workload.wait(timeout=30)
    assert code == 0
    (state_file,) = folder.iterdir()
    assert state_file.name == f"watch-{workload.pid}.json"
    state = json.loads(state_file.read_text())
    assert state["active"] is False
    capsys.readouterr()

    snapshot = save(node(), tmp_path / "node.yaml")
    assert cli.run(["export", "prometheus", str(snapshot), "--watch-dir", str(folder)]) == 0
    text = capsys.readouterr().out
    ident = {"pid": str(workload.pid)}
    assert one(text, "envsnap_watch_verdict", verdict=state["verdict"], **ident) == 1
    assert one(text, "envsnap_watch_active", **ident) == 0
    ((labels, _),) = series(text, "envsnap_watch_active")
    assert labels["process"].startswith("python")


def test_an_unwritable_export_folder_fails_before_watching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.run(["watch", "--pid", "1", "--export", str(tmp_path / "missing"), "--no-report"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("envsnap: error: ")
    assert "missing" in err
