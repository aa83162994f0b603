"""Pilot tests of the TUI on a saved snapshot (read-only), and of snapshots that won't load."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from textual.notifications import Notify
from textual.widgets import Static

from envsnap.cli import cli
from envsnap.snapshot import store
from envsnap.snapshot.model import Sample
from envsnap.tui.app import EnvsnapApp
from envsnap.tui.widgets.device_card import DeviceCard
from tests.fakes.fake_telemetry import RecordedHost
from tests.tui.conftest import AppFactory, host_snapshot, recorded_findings, until_ready, wait_for


def _saved_with_telemetry(v100: RecordedHost, folder: Path) -> Path:
    captured_at = v100.captured_at.isoformat().replace("+00:00", "Z")
    snapshot = msgspec.structs.replace(
        host_snapshot(v100, recorded_findings()),
        telemetry=Sample(captured_at=captured_at, devices=v100.devices),
    )
    return store.save(snapshot, folder / "gpu-node-01.yaml")


async def test_saved_snapshot_opens_read_only(
    make_app: AppFactory, v100: RecordedHost, tmp_path: Path
) -> None:
    path = _saved_with_telemetry(v100, tmp_path)
    notes: list[str] = []

    def hook(message: object) -> None:
        if isinstance(message, Notify):
            notes.append(message.notification.message)

    app = make_app(snapshot_path=path)
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await until_ready(app, pilot)
        assert not app.live
        assert f"snapshot file {path} · read-only" in str(
            app.main.query_one("#overview-source", Static).render()
        )
        await pilot.press("2")
        status = str(app.main.query_one("#devices-status", Static).render())
        assert status.startswith("recorded at 2022-09-15T13:55:33")
        cards = list(app.main.query(DeviceCard))
        assert len(cards) == 8
        assert "37305" in str(cards[0].render())  # processes as recorded, not joined with this host
        await pilot.press("s", "p")
        await wait_for(lambda: len(notes) == 2, pilot)
        assert "read-only" in notes[0]
        assert "no live telemetry" in notes[1]
        assert list(tmp_path.glob("*.yaml")) == [path]  # nothing new written


async def test_snapshot_without_telemetry(make_app: AppFactory, v100: RecordedHost, tmp_path: Path) -> None:
    path = store.save(host_snapshot(v100), tmp_path / "bare.yaml")
    app = make_app(snapshot_path=path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("2")
        assert "no telemetry recorded" in str(app.main.query_one("#devices-status", Static).render())
        assert app.main.query("#devices-empty")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("schema: 1\nmeta: [unclosed\n", "not valid YAML"),  # a truncated file
        ("schema: 99\nmeta: {}\n", "newer envsnap"),  # written by a future envsnap
        (None, "no such file"),
    ],
)
async def test_snapshot_that_wont_load_is_an_error_state(
    make_app: AppFactory, tmp_path: Path, content: str | None, expected: str
) -> None:
    path = tmp_path / "bad.yaml"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    notes: list[tuple[str, str]] = []

    def hook(message: object) -> None:
        if isinstance(message, Notify):
            notes.append((message.notification.title, message.notification.severity))

    app = make_app(snapshot_path=path)
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await wait_for(lambda: app.main.load_error is not None, pilot)
        await pilot.pause()
        error = str(app.main.query_one("#overview-error", Static).render())
        assert expected in error
        assert "bad.yaml" in error
        assert ("Cannot open snapshot", "error") in notes
        await pilot.press("2", "3", "4", "1")  # every tab still works
        assert app.is_running


def test_cli_tui_help_and_interval_bounds() -> None:
    runner = CliRunner()
    shown = runner.invoke(cli, ["tui", "--help"])
    assert shown.exit_code == 0
    assert "--interval" in shown.output
    assert "--dir" in shown.output
    refused = runner.invoke(cli, ["tui", "--interval", "0.05"])
    assert refused.exit_code == 2
    assert "0.05 is not in the range x>=0.1" in refused.output


def test_app_clamps_interval() -> None:
    assert EnvsnapApp(interval_s=0.01).interval_s == 0.1
