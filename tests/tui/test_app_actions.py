"""Pilot tests of the TUI's actions: save, diff, mark, packages filter and sort, checks, help, palette."""

from __future__ import annotations

from pathlib import Path

import msgspec
from textual.binding import Binding
from textual.command import CommandList
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import ColumnKey

from envsnap.snapshot import store
from envsnap.snapshot.model import Environment, ExtensionDistribution, Extensions, Package, PackageSource
from envsnap.tui.app import EnvsnapApp
from envsnap.tui.panes.checks import FindingView
from envsnap.tui.panes.packages import MAX_SHOWN_ROWS, PackagesPane
from envsnap.tui.panes.snapshots import SnapshotsPane
from envsnap.tui.screens.diff import DiffScreen
from envsnap.tui.screens.help import HelpScreen, key_label
from tests.fakes.fake_telemetry import RecordedHost
from tests.tui.conftest import FROZEN_NOW, AppFactory, host_snapshot, recorded_findings, until_ready, wait_for


async def _save(app: EnvsnapApp, pilot: object, folder: Path) -> Path:
    await pilot.press("s")  # type: ignore[attr-defined]
    await wait_for(lambda: any(folder.glob("*.yaml")), pilot)
    await wait_for(lambda: bool(app.main.entries), pilot)
    return next(folder.glob("*.yaml"))


async def test_save_writes_live_state_to_the_folder(make_app: AppFactory, tmp_path: Path) -> None:
    folder = tmp_path / "snapshots"
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        path = await _save(app, pilot, folder)
        assert path.name == "gpu-node-01-20220915T140000Z.yaml"  # host + the (frozen) save time
        saved = store.load(path)
        assert saved.meta.captured_at == FROZEN_NOW.strftime("%Y-%m-%dT%H:%M:%SZ")
        assert saved.telemetry is not None
        assert len(saved.telemetry.devices) == 8
        assert saved.fingerprint == app.main.snapshot.fingerprint  # type: ignore[union-attr]
        await pilot.press("5")
        table = app.main.query_one("#snapshot-table", DataTable)
        assert table.row_count == 1
        assert str(table.get_row_at(0)[1]) == path.name


async def test_save_while_probing_is_queued_and_done_when_probing_completes(
    make_app: AppFactory, v100: RecordedHost
) -> None:
    """Issue 24 item 2: s during probing says it will save, and does once the snapshot is complete."""
    import threading

    from textual.notifications import Notify

    from tests.tui.conftest import FixedCollector

    toasts: list[str] = []

    def hook(message: object) -> None:
        if isinstance(message, Notify):
            toasts.append(message.notification.message)

    release = threading.Event()
    app = make_app(collector=FixedCollector(host_snapshot(v100), release))
    try:
        async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
            await pilot.press("s", "s")  # twice: still one save
            await pilot.pause()
            assert toasts.count("Saving when probing completes…") == 1
            assert not list(app.snapshot_dir.glob("*.yaml"))
            release.set()
            await wait_for(lambda: any(app.snapshot_dir.glob("*.yaml")), pilot)
            await wait_for(lambda: bool(app.main.entries), pilot)
            assert len(list(app.snapshot_dir.glob("*.yaml"))) == 1
            assert any(toast.startswith("Saved ") for toast in toasts)
    finally:
        release.set()


async def test_save_into_an_unwritable_folder_is_a_toast(make_app: AppFactory, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the snapshots folder should go", encoding="utf-8")
    toasts: list[tuple[str, str]] = []

    def hook(message: object) -> None:
        from textual.notifications import Notify

        if isinstance(message, Notify):
            toasts.append((message.notification.title, message.notification.message))

    app = make_app(snapshot_dir=blocker / "snapshots")
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await until_ready(app, pilot)
        await pilot.press("s")
        await wait_for(lambda: toasts, pilot)
        title, message = toasts[0]
        assert title == "Save failed"
        assert "cannot write" in message
        assert app.is_running


async def test_diff_selected_against_this_machine(
    make_app: AppFactory, v100: RecordedHost, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    # A snapshot of the same host from before a driver upgrade: same stack, other driver.
    older = host_snapshot(v100, recorded_findings())
    assert older.accelerators is not None
    assert older.accelerators.nvidia is not None
    nvidia = msgspec.structs.replace(older.accelerators.nvidia, driver_version="460.39")
    older = msgspec.structs.replace(
        older, accelerators=msgspec.structs.replace(older.accelerators, nvidia=nvidia)
    )
    store.save(older, folder / "before-upgrade.yaml")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("5", "d")
        await wait_for(lambda: isinstance(app.screen, DiffScreen), pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert (screen.old_label, screen.new_label) == ("before-upgrade.yaml", "this machine")
        paths = [change.path for change in screen.changes]
        assert any("driver_version" in path for path in paths)
        impacts = [change.impact for change in screen.changes]
        assert impacts == sorted(impacts, key=["breaking", "notable", "minor"].index)  # breaking first
        await pilot.press("escape")
        assert app.screen is app.main


async def test_mark_base_then_diff_two_files(
    make_app: AppFactory, v100: RecordedHost, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    base = host_snapshot(v100)
    store.save(base, folder / "a-base.yaml")
    assert base.packages is not None
    newer = msgspec.structs.replace(
        base,
        packages=(
            *base.packages,
            Package(name="numpy", version="2.3.5", installer="pip", source=PackageSource(kind="index")),
        ),
    )
    store.save(newer, folder / "b-newer.yaml")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("5", "m")
        pane = app.main.query_one(SnapshotsPane)
        assert pane.marked == folder / "a-base.yaml"
        assert str(app.main.query_one("#snapshot-table", DataTable).get_row_at(0)[0]) == "base"
        await pilot.press("down", "d")
        await wait_for(lambda: isinstance(app.screen, DiffScreen), pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert (screen.old_label, screen.new_label) == ("a-base.yaml", "b-newer.yaml")
        assert next(c.kind for c in screen.changes if "numpy" in c.path) == "added"
        await pilot.press("escape", "m")  # m on the marked row again unmarks it
        assert pane.marked == folder / "b-newer.yaml"


async def test_diff_of_an_import_says_what_was_not_compared_and_redacts(
    make_app: AppFactory, tmp_path: Path, v100: RecordedHost
) -> None:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    base = host_snapshot(v100)
    # Like an `envsnap import nvidia-smi-xml`: no package layer at all, and a hand-added secret.
    imported = msgspec.structs.replace(
        base,
        packages=None,
        environment=Environment(
            status="ok", variables={"HF_TOKEN": "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"}
        ),
    )
    store.save(imported, folder / "a-import.yaml")
    store.save(base, folder / "b-probe.yaml")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("5", "m", "down", "d")
        await wait_for(lambda: isinstance(app.screen, DiffScreen), pilot)
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        assert "packages (absent in old)" in screen.not_compared
        assert not any(c.path.startswith("packages") for c in screen.changes)  # unknown, not removed
        assert "hf_aBcDeF" not in repr(screen.changes)


async def test_unreadable_snapshot_listed_with_reason(make_app: AppFactory, tmp_path: Path) -> None:
    folder = tmp_path / "snapshots"
    folder.mkdir()
    (folder / "broken.yaml").write_text("schema: 1\nmeta: [unclosed\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("5")
        entry = app.main.entries[0]  # type: ignore[index]
        assert entry.error is not None
        assert entry.error.startswith("line ")
        await pilot.press("d")  # diffing a broken file explains instead of crashing
        await pilot.pause()
        assert app.screen is app.main


def _focused_id(app: EnvsnapApp) -> str | None:
    return None if app.focused is None else app.focused.id


def _table_names(app: EnvsnapApp) -> list[str]:
    table = app.main.query_one("#package-table", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def test_packages_filter_sort_and_linked_marker(make_app: AppFactory, v100: RecordedHost) -> None:
    snapshot = host_snapshot(v100, recorded_findings())
    # What the extension scan reports for a CUDA build of torch (libraries as in its wheel's DT_NEEDED).
    extensions = Extensions(
        status="ok",
        scanned_files=1,
        distributions=(
            ExtensionDistribution(
                name="torch", version="2.13.0", vendors=("cuda",), libraries=("libcudart.so.12",), files=1
            ),
        ),
    )
    app = make_app(snapshot=msgspec.structs.replace(snapshot, extensions=extensions))
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("3")
        assert _table_names(app) == ["filelock", "mpmath", "sympy", "torch", "typing_extensions"]
        table = app.main.query_one("#package-table", DataTable)
        torch_row = [str(cell) for cell in table.get_row_at(3)]
        assert torch_row[0] == "torch"
        assert torch_row[4] == "CUDA"
        await pilot.press("slash")
        assert _focused_id(app) == "package-filter"
        await pilot.press("t", "y", "p")
        assert _table_names(app) == ["typing_extensions"]
        await pilot.press("escape")
        assert _focused_id(app) == "package-table"
        app.main.query_one("#package-filter", Input).value = ""
        await pilot.press("o")  # sort by version
        pane = app.main.query_one(PackagesPane)
        assert pane.sort_column == "version"
        # By version: mpmath 1.3.0 < sympy 1.14.0 < torch 2.13.0+cpu < filelock 3.20.0 < typing_ext. 4.15.0
        assert _table_names(app) == ["mpmath", "sympy", "torch", "filelock", "typing_extensions"]
        table = app.main.query_one("#package-table", DataTable)
        version_x = table.columns[ColumnKey("name")].get_render_width(table) + 1
        await pilot.click("#package-table", offset=(version_x, 0))  # the "version" header: reverse the order
        await pilot.pause()
        assert pane.sort_reverse


async def test_a_huge_package_list_fills_the_table_up_to_the_cap_and_the_filter_reaches_the_rest(
    make_app: AppFactory, v100: RecordedHost
) -> None:
    # #15 item 13 in the TUI: 150k rows refilled on every key of the filter froze the app for
    # minutes; the table holds MAX_SHOWN_ROWS, the counts say how many matched, and sorting and
    # filtering still run over every row.
    count = MAX_SHOWN_ROWS + 1_000
    packages = tuple(
        Package(name=f"pkg-{i:05d}", version=f"{1 + i % 50}.{i % 7}.0" if i != 2_700 else "0.1.0")
        for i in range(count)
    )
    snapshot = msgspec.structs.replace(host_snapshot(v100), packages=packages)
    app = make_app(snapshot=snapshot)
    async with app.run_test(size=(120, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("3")
        table = app.main.query_one("#package-table", DataTable)
        subtitle = app.main.query_one("#package-filter", Input).border_subtitle
        assert table.row_count == MAX_SHOWN_ROWS
        assert f"first 2,000 of {count:,} matching ({count:,} in all)" in str(subtitle)
        await pilot.press("slash", "0", "2", "7", "0", "0")  # beyond the first 2,000 by name
        assert _table_names(app) == ["pkg-02700"]
        assert "1 of 3000 · sorted by name" in str(
            app.main.query_one("#package-filter", Input).border_subtitle
        )
        app.main.query_one("#package-filter", Input).value = ""
        await pilot.press("escape", "o")  # by version: the lowest of all rows comes first
        await pilot.pause()
        assert _table_names(app)[0] == "pkg-02700"


async def test_checks_lists_findings_errors_first(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("4")
        views = list(app.main.query(FindingView))
        # The real rules on the recorded V100 host: one error, then a warning and an info.
        assert [v.has_class("-error") for v in views] == [True, False, False]
        first, second = (str(v.query(Static).first().render()) for v in views[:2])
        assert "cpu-only-build-on-gpu-host" in first
        assert "frameworks.torch.version = 2.13.0+cpu" in first
        assert "toolkits.cuda.version = 13.0" in second
        assert "fix: Upgrade the NVIDIA driver" in second


async def test_checks_empty_state(make_app: AppFactory, v100: RecordedHost) -> None:
    app = make_app(snapshot=host_snapshot(v100, findings=()))
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("4")
        assert "No findings" in str(app.main.query_one("#checks-empty", Static).render())


async def test_live_collection_attaches_the_rules_findings(make_app: AppFactory, v100: RecordedHost) -> None:
    from envsnap import api

    bare = msgspec.structs.replace(
        host_snapshot(v100), findings=None
    )  # as api.collect(findings=False) returns
    app = make_app(snapshot=bare)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        assert app.main.snapshot is not None
        assert app.main.snapshot.findings == tuple(api.check(bare))


async def test_help_lists_every_binding(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text", Static).render())
        for _, bindings in app.screen.sections:
            for item in bindings:
                binding = item if isinstance(item, Binding) else Binding(*item)
                assert key_label(binding) in text
                assert binding.description in text
        assert "Mark base" in text
        assert "Filter" in text
        assert "Quit" in text
        await pilot.press("escape")
        assert app.screen.id == "main"


async def test_command_palette_runs_save(make_app: AppFactory, tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"save snap")
        await wait_for(lambda: app.screen.query_one(CommandList).option_count > 0, pilot)
        first = app.screen.query_one(CommandList).get_option_at_index(0)
        assert "Save snapshot" in str(first.prompt)
        await pilot.press("enter")
        await wait_for(lambda: any((tmp_path / "snapshots").glob("*.yaml")), pilot)


async def test_quit_key_exits(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("q")
        await wait_for(lambda: not app.is_running, pilot)
    assert app.return_code == 0


async def test_a_diff_screen_of_thousands_of_changes_holds_the_most_severe() -> None:
    from textual.app import App

    from envsnap.render.diff import MAX_TABLE_ROWS
    from envsnap.snapshot.model import Change

    minor = [
        Change(layer="packages", path=f"packages[p{i:05d}]", kind="changed", old="1", new="2", impact="minor")
        for i in range(MAX_TABLE_ROWS + 5)
    ]
    torch = ("frameworks.torch.version", "2.4.1+cu121", "2.4.1+cu124")
    breaking = Change(
        layer="framework", path=torch[0], kind="changed", old=torch[1], new=torch[2], impact="breaking"
    )
    app: App[None] = App()
    async with app.run_test(size=(120, 30)) as pilot:
        await app.push_screen(DiffScreen("a", "b", [*minor, breaking]))
        await pilot.pause()
        table = app.screen.query_one("#diff-table", DataTable)
        assert table.row_count == MAX_TABLE_ROWS
        assert str(table.get_row_at(0)[0]) == "breaking"
        summary = str(app.screen.query_one("#diff-summary", Static).render())
        assert f"the {MAX_TABLE_ROWS:,} most severe shown" in summary
        assert "1 breaking" in summary
        assert f"{MAX_TABLE_ROWS + 5} minor" in summary


async def test_help_says_where_a_tab_gives_a_key_another_meaning(make_app: AppFactory) -> None:
    """Issue 24 item 3: help promised `m` = Migrate everywhere; on the Snapshots tab it marks a base."""
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = str(app.screen.query_one("#help-text", Static).render())
        assert "Migrate (Snapshots tab: Mark base)" in text
        assert "Quit (" not in text  # keys no tab rebinds carry no note
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is app.main
