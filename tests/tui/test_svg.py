"""SVG screenshots of every screen at 80×24 and 160×48 (pytest-textual-snapshot).

Data is deterministic: the recorded V100 host, a frozen clock, a sampler clock stepping from the
capture time, no process lookups. textual and rich are pinned exactly in pyproject.toml because
the SVG text depends on their rendering. After an intended change, regenerate with
``pytest tests/tui/test_svg.py --snapshot-update`` and review ``snapshot_report.html``.
docs/screenshots/ holds copies of some of these files for the README and docs/usage/tui.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from textual.pilot import Pilot

from envsnap.snapshot import store
from envsnap.snapshot.model import Sample
from envsnap.tui.app import EnvsnapApp
from tests.fakes.fake_telemetry import RecordedHost
from tests.tui.conftest import AppFactory, host_snapshot, recorded_findings, until_ready, wait_for

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (160, 48)]
HISTORY_SAMPLES = 6
"""Samples taken before a Devices screenshot, so the sparklines have a visible history."""


def _prepare(app: EnvsnapApp, keys: str = "", samples: int = 1) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await until_ready(app, pilot)
        for count in range(2, samples + 1):
            app.sample_now()
            await wait_for(lambda n=count: _sample_count(app) == n, pilot)  # type: ignore[misc]
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


def _sample_count(app: EnvsnapApp) -> int:
    telemetry = app.main.telemetry
    return 0 if telemetry is None else len(telemetry.history["nvidia-0"].gpu_util_percent)


def _seed_snapshots(folder: Path, host: RecordedHost) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    snapshot = host_snapshot(host, recorded_findings())
    store.save(snapshot, folder / "gpu-node-01-20220915T135533Z.yaml")
    assert snapshot.accelerators is not None
    assert snapshot.accelerators.nvidia is not None
    older = msgspec.structs.replace(
        snapshot,
        accelerators=msgspec.structs.replace(
            snapshot.accelerators,
            nvidia=msgspec.structs.replace(snapshot.accelerators.nvidia, driver_version="460.39"),
        ),
    )
    store.save(older, folder / "gpu-node-01-before-upgrade.yaml")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(
    ("tab", "keys", "samples"),
    [("overview", "", 1), ("devices", "2", HISTORY_SAMPLES), ("packages", "3", 1), ("checks", "4", 1)],
    ids=["overview", "devices", "packages", "checks"],
)
def test_tab(
    snap_compare: SnapCompare, make_app: AppFactory, tab: str, keys: str, samples: int, size: tuple[int, int]
) -> None:
    app = make_app()
    assert snap_compare(app, terminal_size=size, run_before=_prepare(app, keys, samples))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshots_tab(
    snap_compare: SnapCompare,
    make_app: AppFactory,
    v100: RecordedHost,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    monkeypatch.chdir(tmp_path)  # the folder shows as "snapshots/", as with the real default
    _seed_snapshots(tmp_path / "snapshots", v100)
    app = make_app(snapshot_dir=Path("snapshots"))
    assert snap_compare(app, terminal_size=size, run_before=_prepare(app, "5m"))


def test_diff_screen(
    snap_compare: SnapCompare, make_app: AppFactory, v100: RecordedHost, tmp_path: Path
) -> None:
    _seed_snapshots(tmp_path / "snapshots", v100)
    app = make_app()

    async def run_before(pilot: Pilot[Any]) -> None:
        await _prepare(app, "5")(pilot)
        await pilot.press("down", "d")
        await wait_for(lambda: app.screen.id == "diff-screen", pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_help_screen(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    app = make_app()
    assert snap_compare(app, terminal_size=(80, 24), run_before=_prepare(app, "?"))


def test_saved_snapshot_devices(
    snap_compare: SnapCompare, make_app: AppFactory, v100: RecordedHost, tmp_path: Path
) -> None:
    captured_at = v100.captured_at.isoformat().replace("+00:00", "Z")
    snapshot = msgspec.structs.replace(
        host_snapshot(v100, recorded_findings()),
        telemetry=Sample(captured_at=captured_at, devices=v100.devices),
    )
    path = store.save(snapshot, tmp_path / "gpu-node-01.yaml")
    app = make_app(snapshot_path=path)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_prepare(app, "2"))


def test_light_theme_overview(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    app = make_app()
    app.theme = "textual-light"
    assert snap_compare(app, terminal_size=(80, 24), run_before=_prepare(app))
