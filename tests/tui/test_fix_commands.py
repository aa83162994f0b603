"""Issue 24 item 6: fix commands on lines of their own, never wrapped, and a key that copies one."""

from __future__ import annotations

from envsnap.tui.panes.checks import FindingView, FixCommand, fix_commands
from tests.tui.conftest import AppFactory, recorded_findings, until_ready


def test_commands_are_the_backticked_spans_with_arguments() -> None:
    fixes = {f.id: f.fix for f in recorded_findings()}
    persistence = next(fix for fix in fixes.values() if "persistenced" in fix)
    assert fix_commands(persistence) == [
        "sudo systemctl enable --now nvidia-persistenced",
        "sudo nvidia-smi -pm 1",
    ]
    toolkit = next(fix for fix in fixes.values() if "CUDA_HOME" in fix)
    assert fix_commands(toolkit) == []  # `CUDA_HOME` names a variable; it is not a command
    assert fix_commands(
        "Reinstall: `pip uninstall -y torch && pip install torch==2.4.1 --index-url "
        "https://download.pytorch.org/whl/cu121`."
    ) == [
        "pip uninstall -y torch && pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121"
    ]


async def test_a_long_command_stays_on_one_line_at_80_columns(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("4")
        await pilot.pause()
        commands = list(app.main.query(FixCommand))
        assert [str(c.render()) for c in commands] == [
            "$ sudo systemctl enable --now nvidia-persistenced",
            "$ sudo nvidia-smi -pm 1",
        ]
        for command in commands:
            assert command.size.height == 1  # not wrapped, whatever the width
            assert command.size.width == len(str(command.render()))  # nothing cut off


async def test_c_copies_the_first_fix_command_on_screen(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("4", "c")
        await pilot.pause()
        # The CPU-only torch and toolkit findings name no command; the persistence one does.
        assert app.clipboard == "sudo systemctl enable --now nvidia-persistenced"
        views = list(app.main.query(FindingView))
        assert [bool(fix_commands(v.finding.fix)) for v in views] == [False, False, True]
