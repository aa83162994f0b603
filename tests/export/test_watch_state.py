"""``watch --export``'s state files: written on verdict changes and heartbeats, read distrustfully."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import msgspec
import pytest

from envsnap.live.monitor import LiveState
from envsnap.live.run_report import Thresholds
from envsnap.live.verdict import Detector
from envsnap.live.watch_state import (
    HEARTBEAT_S,
    MAX_AGE_S,
    MAX_STATE_BYTES,
    MAX_WATCHES,
    WatchExport,
    WatchState,
    read_states,
    state_path,
)
from tests.fakes.run_reports import fallback_on_t4


def _write(folder: Path, state: WatchState, name: str | None = None) -> Path:
    path = folder / (name or f"watch-{state.pid}.json")
    path.write_bytes(msgspec.json.encode(state))
    return path


def _state(pid: int, updated_at: float, verdict: str = "gpu-active") -> WatchState:
    return WatchState(pid=pid, process="python3", verdict=verdict, active=True, updated_at=updated_at)  # type: ignore[arg-type]


def test_export_writes_on_start_on_a_change_and_at_the_end(tmp_path: Path) -> None:
    export = WatchExport(tmp_path, os.getpid())
    export.start()
    path = state_path(tmp_path, os.getpid())
    first = json.loads(path.read_text())
    assert first["verdict"] == "inconclusive"
    assert first["active"] is True
    assert first["process"] == __import__("psutil").Process().name()

    state = LiveState(detector=Detector(Thresholds()))  # no device seen: no-accelerator
    export(state)
    assert json.loads(path.read_text())["verdict"] == "no-accelerator"
    stamp = path.stat().st_mtime_ns
    export(state)  # same verdict, heartbeat not due: no write
    assert path.stat().st_mtime_ns == stamp

    report = fallback_on_t4()  # a real report's shape: cpu-fallback-suspected
    assert report.verdict == "cpu-fallback-suspected"
    export.finish(report)
    last = json.loads(path.read_text())
    assert last["verdict"] == "cpu-fallback-suspected"
    assert last["active"] is False
    assert export.error is None
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp file left


def test_export_heartbeat_rewrites_an_unchanged_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export = WatchExport(tmp_path, os.getpid())
    state = LiveState(detector=Detector(Thresholds()))
    now = [1000.0]
    monkeypatch.setattr("envsnap.live.watch_state.time.time", lambda: now[0])
    export(state)
    now[0] += HEARTBEAT_S + 1
    export(state)
    assert json.loads(state_path(tmp_path, os.getpid()).read_text())["updated_at"] == now[0]


def test_an_unwritable_folder_is_reported_not_raised(tmp_path: Path) -> None:
    export = WatchExport(tmp_path / "missing", 1)
    export.start()
    assert export.error is not None
    assert "no such folder" in export.error


def test_read_states_keeps_the_fresh_well_formed_files_only(tmp_path: Path) -> None:
    now = time.time()
    _write(tmp_path, _state(10, now))
    _write(tmp_path, _state(11, now - MAX_AGE_S - 1))  # stale: the watch is gone
    _write(tmp_path, _state(12, now), name="watch-13.json")  # speaks for another PID
    _write(tmp_path, _state(14, now), name="other-14.json")  # not a state file name
    (tmp_path / "watch-15.json").write_text(
        '{"pid": 15, "verdict": "on-fire", "active": true, "updated_at": 1}'
    )
    extra = {"pid": 16, "verdict": "gpu-active", "active": True, "updated_at": now, "extra": 1}
    (tmp_path / "watch-16.json").write_text(json.dumps(extra))  # an unknown field: not ours
    (tmp_path / "watch-17.json").write_bytes(b"{" + b" " * MAX_STATE_BYTES + b"}")
    (tmp_path / "watch-18.json").symlink_to(_write(tmp_path, _state(18, now), name="target.json"))
    (tmp_path / "watch-19.json").mkdir()
    os.mkfifo(tmp_path / "watch-20.json")
    (tmp_path / "watch-21.json").write_text("not json")
    assert [s.pid for s in read_states(tmp_path, now=now)] == [10]


def test_read_states_caps_the_number_of_watches_keeping_the_newest(tmp_path: Path) -> None:
    now = time.time()
    for pid in range(1, MAX_WATCHES + 11):
        _write(tmp_path, _state(pid, now - 1000 + pid))
    states = read_states(tmp_path, now=now)
    assert len(states) == MAX_WATCHES
    assert [s.pid for s in states] == list(range(11, MAX_WATCHES + 11))


def test_a_missing_folder_has_no_watches(tmp_path: Path) -> None:
    assert read_states(tmp_path / "nope") == []
