"""Pilot tests of the live TUI on recorded hardware: loading, tabs, device cards and failure states."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

import pytest
from textual.notifications import Notify
from textual.widgets import DataTable, Static, TabbedContent

from envsnap.snapshot.model import Sample
from envsnap.tui.app import EnvsnapApp
from envsnap.tui.messages import SamplerFailed, SampleTaken
from envsnap.tui.overview_rows import LayerRow
from envsnap.tui.panes.overview import LayerTable
from envsnap.tui.telemetry import ProcessInfo, PsutilProcesses
from envsnap.tui.widgets.device_card import DeviceCard
from tests.fakes.fake_telemetry import (
    GPU_IS_LOST,
    NVML_UNKNOWN_ERROR,
    FailingSource,
    LosingSource,
    RecordedHost,
    ReplaySource,
    a100_mig_host,
)
from tests.tui.conftest import AppFactory, FixedCollector, host_snapshot, until_ready, wait_for


def _rows(app: EnvsnapApp) -> dict[str, LayerRow]:
    return {row.key: row for row in app.main.query_one(LayerTable).rows}


def _text(app: EnvsnapApp, selector: str) -> str:
    return str(app.main.query_one(selector, Static).render())


async def test_first_frame_before_probes_finish(make_app: AppFactory, v100: RecordedHost) -> None:
    release = threading.Event()
    collector = FixedCollector(host_snapshot(v100), release)
    app = make_app(collector=collector)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(
                lambda: _rows(app).get("python", None) is not None and _rows(app)["python"].badge == "ok",
                pilot,
            )
            rows = _rows(app)
            assert rows["host"].badge == "loading"
            assert rows["host"].summary == "probing…"
            assert rows["python"].summary == "probed in 0.05 s"
            assert app.main.snapshot is None
            release.set()
            await until_ready(app, pilot)
            rows = _rows(app)
            assert "gpu-node-01" in rows["host"].summary
            assert all(row.badge != "loading" for row in rows.values())
    finally:
        release.set()


async def test_overview_shows_stack_and_findings(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        rows = _rows(app)
        assert rows["nvidia"].summary == "driver 460.73.01 · CUDA ≤ 11.2 · 8× Tesla V100S-PCIE-32GB"
        assert rows["torch"].summary == "torch 2.13.0+cpu (CPU build)"
        # Findings raise the badges of the layers their evidence points into.
        assert rows["torch"].badge == "error"  # cpu-only-build-on-gpu-host
        assert rows["cuda"].badge == "warning"  # driver-too-old-for-cuda-toolkit
        assert rows["host"].badge == "ok"
        fingerprint = _text(app, "#overview-fingerprint")
        assert app.main.snapshot is not None
        assert app.main.snapshot.fingerprint is not None
        assert app.main.snapshot.fingerprint[:23] in fingerprint
        assert "1 error" in _text(app, "#overview-findings")


async def test_number_keys_switch_tabs_and_focus(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        tabs = app.main.query_one(TabbedContent)
        for key, tab in zip("23451", ("devices", "packages", "checks", "snapshots", "overview"), strict=True):
            await pilot.press(key)
            assert tabs.active == tab
        await pilot.press("3")
        assert isinstance(app.focused, DataTable)
        assert app.focused.id == "package-table"


async def test_eight_v100_cards_with_live_values(make_app: AppFactory, v100: RecordedHost) -> None:
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("2")
        cards = list(app.main.query(DeviceCard))
        assert [card.id for card in cards] == [f"card-nvidia-{i}" for i in range(8)]
        first = cards[0]
        assert first.border_title == "NVIDIA 0 · Tesla V100S-PCIE-32GB"
        text = str(first.render())
        recorded = v100.devices[0]
        assert f"{recorded.power_draw_watts:.0f}/250 W" in text
        assert "PCIe 3×16 (max 3×16)" in text
        assert "37305" in text
        assert "python" in text
        assert first.border_subtitle == "ok"


async def test_history_grows_and_cycles_recorded_readings(make_app: AppFactory, v100: RecordedHost) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        for expected in (2, 3):
            app.sample_now()
            await wait_for(lambda n=expected: len(_history(app)) == n, pilot)  # type: ignore[misc]
        # Device 0 shows GPU 0's reading, then GPU 1's, then GPU 2's (no invented values).
        assert _history(app) == tuple(d.gpu_util_percent for d in v100.devices[:3])


def _history(app: EnvsnapApp) -> tuple[float, ...]:
    telemetry = app.main.telemetry
    assert telemetry is not None
    return telemetry.history["nvidia-0"].gpu_util_percent


async def test_mig_card_shows_instances_and_missing_utilization() -> None:
    from tests.tui.conftest import NoLocalProcesses

    host = a100_mig_host()
    app = EnvsnapApp(
        collector=FixedCollector(host_snapshot(host)),
        sampler_factory=lambda: __import__("envsnap.live.sampler", fromlist=["Sampler"]).Sampler(
            [ReplaySource(host)]
        ),
        process_lookup=NoLocalProcesses(),
        interval_s=3600,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("2")
        text = str(app.main.query_one("#card-nvidia-0", DeviceCard).render())
        assert "MIG on · 4 instances" in text
        # Under MIG, nvidia-smi reports utilization as N/A: shown as unknown, never as 0 %.
        assert "gpu       –" in text
        assert "no processes" in text


async def test_gpu_lost_mid_session_marks_only_that_card(make_app: AppFactory, v100: RecordedHost) -> None:
    app = make_app(sources=[LosingSource(v100, index=3, after=1)])
    async with app.run_test(size=(160, 48)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("2")
        assert not app.main.query(".-lost")
        app.sample_now()
        await wait_for(lambda: app.main.query(".-lost"), pilot)
        lost = app.main.query_one("#card-nvidia-3", DeviceCard)
        assert "-lost" in lost.classes
        assert lost.border_subtitle == "GPU LOST"
        assert f"GPU lost: {GPU_IS_LOST}" in str(lost.render())
        others = [card for card in app.main.query(DeviceCard) if card is not lost]
        assert len(others) == 7
        assert all(card.border_subtitle == "ok" for card in others)


async def test_nvml_failing_after_start_is_shown_and_backs_off(
    make_app: AppFactory, v100: RecordedHost
) -> None:
    taken: list[Sample] = []
    toasts: list[str] = []

    def hook(message: object) -> None:
        # The first sample is posted twice (its cards first, then with processes): counted once.
        if isinstance(message, SampleTaken) and not (taken and taken[-1] is message.sample):
            taken.append(message.sample)
        if isinstance(message, Notify):
            toasts.append(message.notification.title)

    app = make_app(sources=[FailingSource(v100, after=1)], interval_s=0.1)
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await until_ready(app, pilot)
        await pilot.press("2")
        await wait_for(lambda: len(taken) >= 3, pilot)
        assert taken[0].errors is None
        assert taken[1].errors == (f"nvml: {NVML_UNKNOWN_ERROR}",)
        status = _text(app, "#devices-status")
        assert f"nvml: {NVML_UNKNOWN_ERROR}" in status
        assert toasts.count("Telemetry backend failing") == 1  # once per new error, not every sample
        # The retry delay doubles while the backend keeps failing (0.1 s interval: 0.2, 0.4, ...).
        await wait_for(lambda: app.retry_delay_s >= 0.4, pilot)
        assert app.retry_delay_s == 0.1 * 2 ** (app.sampler_failures)


async def test_sampler_that_cannot_open_is_an_error_state(make_app: AppFactory) -> None:
    failures: list[SamplerFailed] = []

    def broken() -> object:
        raise RuntimeError("Driver/library version mismatch")

    def hook(message: object) -> None:
        if isinstance(message, SamplerFailed):
            failures.append(message)

    app = make_app(interval_s=0.1, sampler_factory=broken)
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await wait_for(lambda: len(failures) >= 3, pilot)
        await pilot.press("2")
        assert "Driver/library version mismatch" in _text(app, "#devices-status")
        assert "retrying in" in _text(app, "#devices-status")
        # Each failed attempt waits twice as long as the one before: the loop keeps going, slower.
        assert [f.retry_in_s for f in failures[:3]] == [0.2, 0.4, 0.8]


async def test_hung_sample_keeps_ui_responsive_and_never_piles_up(
    make_app: AppFactory, v100: RecordedHost
) -> None:
    from tests.fakes.fake_telemetry import BlockingSource

    source = BlockingSource(v100, block_at=2)
    app = make_app(sources=[source], interval_s=0.1)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until_ready(app, pilot)
            await wait_for(source.blocked.is_set, pilot)
            tabs = app.main.query_one(TabbedContent)
            for key, tab in (("2", "devices"), ("3", "packages"), ("4", "checks"), ("1", "overview")):
                await pilot.press(key)
                assert tabs.active == tab
            await pilot.press("question_mark")
            assert app.screen.id == "help-screen"
            await pilot.press("escape")
            for _ in range(10):  # many sampling intervals pass while the read hangs
                await pilot.pause(0.05)
            assert source.reads == 2
            assert source.max_in_flight == 1
            source.release.set()
            await wait_for(lambda: source.reads >= 3, pilot)
            assert source.max_in_flight == 1
    finally:
        source.release.set()


async def test_quit_while_a_read_hangs(make_app: AppFactory, v100: RecordedHost) -> None:
    from tests.fakes.fake_telemetry import BlockingSource

    source = BlockingSource(v100, block_at=1)
    app = make_app(sources=[source])
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(source.blocked.is_set, pilot)
            await pilot.press("q")
            await wait_for(lambda: not app.is_running, pilot)
        assert not source.release.is_set()  # it exited without the read ever returning
    finally:
        source.release.set()


async def test_pause_stops_sampling_until_resumed(make_app: AppFactory, v100: RecordedHost) -> None:
    source = ReplaySource(v100)
    app = make_app(sources=[source], interval_s=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("2", "p")
        assert "paused" in _text(app, "#devices-status")
        await wait_for(lambda: not app.sampling, pilot)  # a read in flight when p was pressed may land
        reads = source.reads
        for _ in range(8):  # eight sampling intervals
            await pilot.pause(0.05)
        assert source.reads == reads
        assert not app.sampling
        await pilot.press("p")
        await wait_for(lambda: source.reads > reads, pilot)
        assert "live · every 0.1 s" in _text(app, "#devices-status")


async def test_refresh_probes_again(make_app: AppFactory, v100: RecordedHost) -> None:
    collector = FixedCollector(host_snapshot(v100))
    app = make_app(collector=collector)
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        assert collector.calls == 1
        await pilot.press("r")
        await wait_for(lambda: collector.calls == 2, pilot)


async def test_host_without_gpus_says_so(make_app: AppFactory) -> None:
    app = make_app(sources=[])
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        await pilot.press("2")
        await wait_for(lambda: app.main.query("#devices-empty"), pilot)
        assert "No GPU telemetry on this host" in _text(app, "#devices-empty")


async def test_processes_joined_with_psutil_in_the_worker(make_app: AppFactory, v100: RecordedHost) -> None:
    # Map the recorded training process onto this test process: a real PID psutil can resolve.
    me = os.getpid()
    import msgspec

    devices = tuple(
        msgspec.structs.replace(
            d, processes=tuple(msgspec.structs.replace(p, pid=me) for p in d.processes or ())
        )
        for d in v100.devices
    )
    host = RecordedHost(devices, v100.captured_at, nvidia=v100.nvidia)
    main_thread = threading.get_ident()
    seen_threads: list[int] = []

    class ThreadRecordingProcesses(PsutilProcesses):
        def lookup(self, pids: Iterable[int]) -> dict[int, ProcessInfo]:
            seen_threads.append(threading.get_ident())
            return super().lookup(pids)

    app = make_app(host=host, process_lookup=ThreadRecordingProcesses())
    async with app.run_test(size=(160, 48)) as pilot:
        await until_ready(app, pilot)
        app.sample_now()
        await wait_for(lambda: len(seen_threads) >= 2, pilot)
        await pilot.pause()
        telemetry = app.main.telemetry
        assert telemetry is not None
        info = telemetry.processes[me]
        import getpass

        assert info.user == getpass.getuser()
        assert info.command is not None
        assert "python" in info.command.lower()
        assert main_thread not in seen_threads
        await pilot.press("2")
        assert getpass.getuser()[:10] in str(app.main.query_one("#card-nvidia-0", DeviceCard).render())


async def test_mi250_host_cards(make_app: AppFactory) -> None:
    from tests.fakes.fake_telemetry import mi250_host

    host = mi250_host()
    app = make_app(host=host, sources=[ReplaySource(host, name="amdsmi")])
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        rows = _rows(app)
        assert rows["amd"].summary == "amdgpu 6.2.4 · ROCm ? · 2× AMD INSTINCT MI250 (MCM) OAM AC MBA"
        await pilot.press("2")
        card = app.main.query_one("#card-amd-0", DeviceCard)
        assert card.border_title == "AMD 0 · AMD INSTINCT MI250 (MCM) OAM AC MBA"
        text = str(card.render())
        assert text.startswith("gfx90a · 0000:29:00.0 · 43 °C")
        assert "91/560 W" in text
        assert "–/– GiB" in text


async def test_no_color_keeps_badges_readable(make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    colored = make_app()
    async with colored.run_test(size=(80, 24)) as pilot:
        await until_ready(colored, pilot)
        error_red = colored.theme_variables["error"].lower()
        assert error_red in colored.export_screenshot().lower()
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until_ready(app, pilot)
        assert app.no_color
        svg = app.export_screenshot().lower()
        assert error_red not in svg  # monochrome output ...
        assert "✖&#160;error" in svg  # ... and the badge still says what it means


async def test_quit_before_the_tabs_are_built(make_app: AppFactory) -> None:
    app = make_app()
    app.call_after_refresh(app.exit)  # quits in the same refresh that would build the hidden tabs
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: not app.is_running, pilot)
    assert app.return_code == 0
    assert app._exception is None
