"""The Migrate view: target picker over the same audit report, computed in a worker."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Select

from envsnap.tui.screens.migrate import MigrateScreen
from tests.conftest import REPO_ROOT
from tests.tui.conftest import AppFactory

PROJECT = REPO_ROOT / "tests" / "data" / "projects" / "cuda_cudnn"


async def _settled(pilot: object, screen: MigrateScreen, target: str) -> None:
    for _ in range(200):
        await pilot.pause(0.05)  # type: ignore[attr-defined]
        if screen.report is not None and screen.report.target.label == target:
            return
    raise AssertionError(f"no report for {target}")


async def test_m_opens_the_migrate_view_and_the_picker_rejudges(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(PROJECT)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if app.snapshot is not None:
                break
        await pilot.press("m")
        screen = app.screen
        assert isinstance(screen, MigrateScreen)
        assert screen.project_dir == Path(PROJECT)
        await _settled(pilot, screen, "rocm")
        rocm = screen.report
        assert rocm is not None
        assert rocm.verdict.risk == "lower"  # .cuda() and cudnn work on ROCm
        assert rocm.environment == "the snapshot on screen"
        screen.query_one(Select).value = "xpu"
        await _settled(pilot, screen, "xpu")
        xpu = screen.report
        assert xpu is not None
        assert xpu.verdict.risk == "moderate"  # one-line device edits, not a rewrite (#22 item 7)
        assert "train.py:13" in {f.location for f in xpu.findings}
        await pilot.pause(0.1)
        drawn = app.export_screenshot()  # what the terminal shows: the report, drawn
        assert "MODERATE" in drawn
        assert "train.py:13" in drawn


async def test_a_vague_typed_target_is_refused_in_the_status_line(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = MigrateScreen(PROJECT, None)
        await app.push_screen(screen)
        await _settled(pilot, screen, "rocm")
        field = screen.query_one(Input)
        field.value = "amd"
        await field.action_submit()
        for _ in range(100):
            await pilot.pause(0.05)
            if "precisely" in str(screen.query_one("#migrate-status").render()):
                break
        assert "name the target precisely" in str(screen.query_one("#migrate-status").render())
        assert screen.report is not None
        assert screen.report.target.label == "rocm"
