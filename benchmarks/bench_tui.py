"""TUI benchmarks: time to first frame against a minimal Textual app, and CPU use while sampling 8 GPUs.

(a) First frame: ``python -m envsnap tui`` (live collection on this machine) and a minimal Textual
    app (one Static) are each started the same way, in a pseudo-terminal of 80×24, REPS times,
    with envsnap's modules byte-compiled first, as an installed envsnap's are,
    alternating; the time from spawn to the first appearance of each app's marker text in the
    terminal output is the first frame. Reported: medians and their ratio (target ≤ 1.5).

(b) CPU use: the envsnap app showing the Devices tab for the recorded 8× V100 host (the fake
    telemetry replaying tests/data's nvidia-smi capture, refreshed every 1 s) runs in a real
    pseudo-terminal for DURATION_S seconds; its own CPU time (``time.process_time``, all threads)
    over that window divided by the window is reported as percent of one core (target < 2 %).
    As a baseline in the same run, the minimal app is measured over the same window.

(c) Live, against nvitop (the named peer): ``envsnap tui`` and ``nvitop --interval 1`` each run in
    a tmux session of 80×24 and 200×50, on the stub ``libnvidia-ml.so.1`` serving two H100s
    through the real nvidia-ml-py (benchmarks/peers.py). After start-up settles, each process's
    CPU time over LIVE_S seconds is read from ``/proc/<pid>/stat`` (percent of one core), for
    envsnap's Overview and Devices tabs, with its resident memory at the end (item 3). Runs are
    interleaved (nvitop, Overview, Devices, repeat) and medians reported, since the development
    machines are shared. Target: every tab ≤ 1.0× nvitop's CPU, RSS ≤ 1.5×.

(d) Time to a useful screen, against nvitop's first full frame (its process table drawn):
    envsnap's first GPU card on the Devices tab (key 2 typed at start) and each non-framework
    Overview row complete (its summary, not "probing…"). Targets: cards ≤ 1.5×, rows ≤ 2×.

(e) Start-up against the Textual floor (issue 24): a minimal Textual app that reads the GPU names
    through NVML on mount and shows them (benchmarks/tui_floor.py), and ``envsnap tui`` with key 2
    typed at start, both in a 160×48 pty on the stub two-H100 ``libnvidia-ml.so.1``, interleaved:
    time from spawn to the GPU name on screen (envsnap: its first GPU card) and RSS then and 5 s
    later. Targets: time and RSS ≤ 1.3× the floor.

(f) Fast keys and idle cost (issue 24): ``envsnap tui`` in tmux 160×48 on the stub; the report's
    ``1 2 3 4 5 1 2 3 4 5 3 4 2 5 4`` sent in one burst; the tab shown, then CPU (percent of one
    core) and RSS growth over 20 s of idling. Targets: Checks, ≤ 5 %, ≤ 10 MB.

Run from the repository root: ``python benchmarks/bench_tui.py`` (add ``--quick`` for a short run;
``--live-only`` for (c) and (d); ``--floor-only`` for (e) and (f); ``--install-peers`` to create the
peer venv).
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
COLS, ROWS = 80, 24

MINIMAL_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static

    class Minimal(App):
        def compose(self):
            yield Static("minimal-ready")

    Minimal().run()
    """
)

DEVICES_APP = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {repo!r})
    from tests.fakes.fake_telemetry import ReplaySource, sampler_factory, v100_host
    from tests.tui.conftest import FixedCollector, NoLocalProcesses, host_snapshot
    from envsnap.tui.app import EnvsnapApp

    host = v100_host()
    app = EnvsnapApp(
        collector=FixedCollector(host_snapshot(host)),
        sampler_factory=sampler_factory([ReplaySource(host)], host.captured_at),
        process_lookup=NoLocalProcesses(),
        interval_s=1.0,
        snapshot_dir={tmp!r},
    )
    marks = {{}}

    def measure():
        marks["cpu0"], marks["t0"] = time.process_time(), time.monotonic()
        app.set_timer({duration}, finish)

    def finish():
        cpu, wall = time.process_time() - marks["cpu0"], time.monotonic() - marks["t0"]
        with open({out!r}, "w") as handle:
            handle.write(f"{{cpu}} {{wall}}")
        app.exit()

    def start():
        app.action_show_tab("devices")
        app.set_timer(3.0, measure)  # let start-up work settle before measuring

    app.call_later(start)
    app.run()
    """
)

MINIMAL_IDLE_APP = textwrap.dedent(
    """
    import time
    from textual.app import App
    from textual.widgets import Static

    marks = {{}}

    class Minimal(App):
        def compose(self):
            yield Static("minimal-ready")

        def on_mount(self):
            self.set_timer(3.0, self.measure)

        def measure(self):
            marks["cpu0"], marks["t0"] = time.process_time(), time.monotonic()
            self.set_timer({duration}, self.finish)

        def finish(self):
            cpu, wall = time.process_time() - marks["cpu0"], time.monotonic() - marks["t0"]
            with open({out!r}, "w") as handle:
                handle.write(f"{{cpu}} {{wall}}")
            self.exit()

    Minimal().run()
    """
)


def _spawn(argv: list[str], cwd: Path) -> tuple[subprocess.Popen[bytes], int]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(COLS), "LINES": str(ROWS)}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True
    )
    os.close(slave)
    return proc, master


def _drain(master: int, timeout_s: float) -> bytes:
    ready, _, _ = select.select([master], [], [], timeout_s)
    if not ready:
        return b""
    try:
        return os.read(master, 65536)
    except OSError:
        return b""


def _stop(proc: subprocess.Popen[bytes], master: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while proc.poll() is None and time.monotonic() < deadline:
        _drain(master, 0.05)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    os.close(master)


def first_frame_s(argv: list[str], marker: bytes, cwd: Path, timeout_s: float = 60.0) -> float:
    """Seconds from spawn until ``marker`` shows in the terminal output."""
    start = time.perf_counter()
    proc, master = _spawn(argv, cwd)
    seen = b""
    try:
        while marker not in seen:
            if time.perf_counter() - start > timeout_s:
                raise RuntimeError(f"{argv}: no first frame within {timeout_s} s; output: {seen[-400:]!r}")
            seen += _drain(master, 0.5)
        return time.perf_counter() - start
    finally:
        _stop(proc, master)


def cpu_percent(source: str, cwd: Path, duration_s: float) -> tuple[float, float]:
    """Run an app script in a pty until it writes its CPU and wall time; percent of one core."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cpu.txt"
        script = Path(tmp) / "app.py"
        script.write_text(
            source.format(repo=str(REPO), tmp=tmp, out=str(out), duration=duration_s), encoding="utf-8"
        )
        proc, master = _spawn([sys.executable, str(script)], cwd)
        deadline = time.monotonic() + duration_s + 60
        try:
            while not out.exists() and time.monotonic() < deadline:
                _drain(master, 0.2)  # a real terminal reads what the app writes
            if not out.exists():
                raise RuntimeError(
                    "the app did not report its CPU time; its last output: "
                    + repr(_drain(master, 0.1)[-300:])
                )
            cpu, wall = (float(x) for x in out.read_text().split())
        finally:
            _stop(proc, master)
    return 100.0 * cpu / wall, wall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of the CPU measurement")
    parser.add_argument("--quick", action="store_true", help="3 reps and a 10 s CPU window")
    parser.add_argument("--live-only", action="store_true", help="only (c) and (d), against nvitop")
    parser.add_argument("--live-reps", type=int, default=3, help="interleaved rounds of (c) and (d)")
    parser.add_argument("--install-peers", action="store_true", help="pip-install nvitop into the peer venv")
    parser.add_argument(
        "--floor-only", action="store_true", help="only (e) and (f), against the Textual floor"
    )
    args = parser.parse_args()
    reps, duration = (3, 10.0) if args.quick else (args.reps, args.duration)
    if args.floor_only:
        floor_parts(reps)
        return
    if not args.live_only:
        fake_telemetry_parts(reps, duration)
        floor_parts(reps)
    live_against_nvitop(1 if args.quick else args.live_reps, args.install_peers)


def floor_parts(reps: int) -> None:
    """Parts (e) and (f): start-up against the minimal Textual NVML app; fast keys, then idling."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import peers
    import tui_floor

    compileall.compile_dir(str(REPO / "src" / "envsnap"), quiet=1)  # as installed: byte-compiled
    with tempfile.TemporaryDirectory() as tmp:
        stub = peers.build_stub(Path(tmp) / "stub")
        tui_floor.report(tui_floor.floor_against_envsnap(reps, stub))
        if shutil.which("tmux") is None:
            print("SKIPPED (f): tmux is not installed")
            return
        env = peers.stub_env(stub, PYTHONPATH=str(REPO / "src"))
        here = os.getcwd()
        os.chdir(tmp)
        session = peers.Tmux(f"keys{time.monotonic_ns()}", _envsnap_argv(), 160, 48, env)
        try:
            if session.wait_for("Fingerprint", 120.0, poll_s=0.25) is None:
                raise RuntimeError(f"envsnap never finished probing; screen:\n{session.screen()}")
            session.keys(*"123451234534254")
            time.sleep(3.0)
            screen = session.screen()
            tab = "Checks" if "Fingerprint" not in screen and "filter by name" not in screen else "NOT Checks"
            rss0, cpu0, t0 = peers.rss_mib(session.pid), peers.cpu_seconds(session.pid), time.monotonic()
            time.sleep(LIVE_S)
            cpu = 100.0 * (peers.cpu_seconds(session.pid) - cpu0) / (time.monotonic() - t0)
            growth = peers.rss_mib(session.pid) - rss0
        finally:
            session.close()
            os.chdir(here)
    print(f"(f) 15 fast tab keys in tmux 160x48, then {LIVE_S:.0f} s idle (1 s telemetry refresh):")
    print(
        f"    tab shown {tab} (target Checks) · CPU {cpu:.2f} % of a core (target <= 5 %) · "
        f"RSS growth {growth:+.1f} MiB (target <= 10 MB)"
    )


def fake_telemetry_parts(reps: int, duration: float) -> None:
    """Parts (a) and (b)."""
    # An installed envsnap (pip install .) has byte-compiled modules, like textual's; an editable
    # checkout run with PYTHONDONTWRITEBYTECODE=1 (set on the development machines) would
    # otherwise recompile ~40 modules on every start and measure the compiler, not the app.
    compileall.compile_dir(str(REPO / "src" / "envsnap"), quiet=1)

    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        minimal_script = cwd / "minimal_app.py"
        minimal_script.write_text(MINIMAL_APP, encoding="utf-8")
        envsnap_times, minimal_times = [], []
        for _ in range(reps):
            minimal_times.append(first_frame_s([sys.executable, str(minimal_script)], b"minimal-ready", cwd))
            envsnap_times.append(first_frame_s([sys.executable, "-m", "envsnap", "tui"], b"Overview", cwd))
    minimal_med, envsnap_med = statistics.median(minimal_times), statistics.median(envsnap_times)
    print(f"(a) first frame, {reps} reps, {COLS}x{ROWS} pty, median:")
    print(f"    minimal Textual app (baseline)   {minimal_med * 1000:7.0f} ms")
    print(f"    envsnap tui (live collection)    {envsnap_med * 1000:7.0f} ms")
    print(f"    ratio                            {envsnap_med / minimal_med:7.2f}x   (target <= 1.5x)")

    try:
        import pytest  # noqa: F401  (the fake telemetry comes from tests/, whose conftest needs pytest)
    except ImportError:
        print("(b) SKIPPED: the fake 8× V100 telemetry lives in tests/ and needs pytest")
        print('    (pip install -e ".[test]"); part (c) measures the live path without it.')
        return
    with tempfile.TemporaryDirectory() as tmp:
        base_pct, _ = cpu_percent(MINIMAL_IDLE_APP, Path(tmp), duration)
        envsnap_pct, wall = cpu_percent(DEVICES_APP, Path(tmp), duration)
    print(f"(b) CPU over {wall:.0f} s, percent of one core:")
    print(f"    minimal Textual app, idle (baseline)        {base_pct:6.2f} %")
    print(f"    envsnap Devices tab, 8x V100, 1 s refresh   {envsnap_pct:6.2f} %   (target < 2 %)")
    print(f"    ratio                                       {envsnap_pct / max(base_pct, 1e-9):6.1f}x")


# ---------------------------------------------------------------------------- (c), (d): live vs nvitop

LIVE_SIZES = ((80, 24), (200, 50))
LIVE_S = 20.0
"""Seconds of CPU measurement per run, as in the issue."""
SETTLE_S = 4.0
"""Seconds after start-up (envsnap: the Overview complete) before measuring."""
OVERVIEW_LABELS = ("Host", "Python", "NVIDIA", "AMD", "CUDA toolkit", "Extensions")
"""The Overview rows that do not wait for a framework import."""


def _envsnap_argv() -> list[str]:
    return [sys.executable, "-m", "envsnap", "tui"]


def _live_cpu(
    peers: Any,
    argv: list[str],
    ready: str,
    keys: tuple[str, ...],
    size: tuple[int, int],
    env: dict[str, str],
    cwd: Path,
) -> tuple[float, float]:
    """(CPU % of one core over LIVE_S, RSS MiB at the end) of one TUI in tmux."""
    os.chdir(cwd)
    session = peers.Tmux(f"cpu{time.monotonic_ns()}", argv, size[0], size[1], env)
    try:
        if session.wait_for(ready, 120.0, poll_s=0.25) is None:
            raise RuntimeError(f"{argv[0]}: never showed {ready!r}; screen:\n{session.screen()}")
        for key in keys:
            session.keys(key)
        time.sleep(SETTLE_S)
        cpu0, t0 = peers.cpu_seconds(session.pid), time.monotonic()
        time.sleep(LIVE_S)
        cpu1, t1 = peers.cpu_seconds(session.pid), time.monotonic()
        return 100.0 * (cpu1 - cpu0) / (t1 - t0), peers.rss_mib(session.pid)
    finally:
        session.close()


def _time_to(
    peers: Any,
    argv: list[str],
    markers: dict[str, Any],
    keys: tuple[str, ...],
    env: dict[str, str],
    cwd: Path,
) -> dict[str, float]:
    """Seconds from start until each marker (a text, or a test of the screen) holds, in a 200×50 tmux."""
    os.chdir(cwd)
    start = time.monotonic()
    session = peers.Tmux(f"ttf{time.monotonic_ns()}", argv, 200, 50, env)
    seen: dict[str, float] = {}
    try:
        if keys:
            session.keys(*keys)  # typed at once; the terminal holds them until the app reads
        while len(seen) < len(markers) and time.monotonic() - start < 60.0:
            screen = session.screen()
            for name, marker in markers.items():
                done = marker in screen if isinstance(marker, str) else marker(screen)
                if name not in seen and done:
                    seen[name] = time.monotonic() - start
            time.sleep(0.02)
    finally:
        session.close()
    return seen


def _row_complete(label: str) -> Any:
    """A test that the Overview row ``label`` shows its layer's summary (not a loading state)."""

    def complete(screen: str) -> bool:
        for line in screen.splitlines():
            if f" {label} " in line and line.lstrip().startswith(("●", "▲", "✖", "○")):
                return "probing" not in line and "probed in" not in line
        return False

    return complete


def _overview_markers() -> dict[str, Any]:
    return {f"{label} row": _row_complete(label) for label in OVERVIEW_LABELS}


def live_against_nvitop(reps: int, install: bool) -> None:
    """Parts (c) and (d)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import peers

    nvitop = peers.find_peer("nvitop", install=install)
    if nvitop is None or shutil.which("tmux") is None:
        if nvitop is None:
            peers.peer_missing("nvitop")
        else:
            print("SKIPPED (c), (d): tmux is not installed")
        return
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        stub = peers.build_stub(Path(tmp) / "stub")
        env = peers.stub_env(stub, PYTHONPATH=str(REPO / "src"))
        cwd = Path(tmp)
        nvitop_argv = [str(nvitop), "--interval", "1"]
        results: dict[tuple[str, tuple[int, int]], list[tuple[float, float]]] = {}
        try:
            for _ in range(reps):
                for size in LIVE_SIZES:
                    runs = (
                        ("nvitop", nvitop_argv, "NVITOP", ()),
                        ("envsnap Overview", _envsnap_argv(), "Fingerprint", ()),
                        ("envsnap Devices", _envsnap_argv(), "Fingerprint", ("2",)),
                    )
                    for label, argv, ready, keys in runs:
                        results.setdefault((label, size), []).append(
                            _live_cpu(peers, argv, ready, keys, size, env, cwd)
                        )
            print(
                f"(c) live CPU over {LIVE_S:.0f} s (percent of one core) and RSS, stub 2× H100, 1 s refresh,"
            )
            print(f"    tmux; median of {reps} interleaved run(s)")
            for size in LIVE_SIZES:
                base_cpu = statistics.median(c for c, _ in results[("nvitop", size)])
                base_rss = statistics.median(r for _, r in results[("nvitop", size)])
                for label in ("nvitop", "envsnap Overview", "envsnap Devices"):
                    cpu = statistics.median(c for c, _ in results[(label, size)])
                    rss = statistics.median(r for _, r in results[(label, size)])
                    ratio = (
                        "(baseline)"
                        if label == "nvitop"
                        else (
                            f"CPU {cpu / max(base_cpu, 1e-9):4.2f}x (target <= 1.0x) · "
                            f"RSS {rss / base_rss:4.2f}x (target <= 1.5x)"
                        )
                    )
                    print(f"    {size[0]:>3}x{size[1]:<3} {label:<17} {cpu:5.2f} %  {rss:5.0f} MiB   {ratio}")

            firsts: dict[str, list[float]] = {}
            for _ in range(reps):
                nv = _time_to(peers, nvitop_argv, {"nvitop full frame": "Processes:"}, (), env, cwd)
                firsts.setdefault("nvitop full frame", []).append(nv.get("nvitop full frame", float("nan")))
                card = _time_to(peers, _envsnap_argv(), {"first GPU card": "NVIDIA 0 ·"}, ("2",), env, cwd)
                firsts.setdefault("first GPU card", []).append(card.get("first GPU card", float("nan")))
                rows = _time_to(peers, _envsnap_argv(), _overview_markers(), (), env, cwd)
                for name in _overview_markers():
                    firsts.setdefault(name, []).append(rows.get(name, float("nan")))
            base = statistics.median(firsts["nvitop full frame"])
            print(f"(d) time to a useful screen, seconds from start, 200x50 tmux, median of {reps}")
            print(f"    nvitop first full frame (baseline)   {base:5.2f} s")
            for name, values in firsts.items():
                if name == "nvitop full frame":
                    continue
                value = statistics.median(values)
                target = 1.5 if name == "first GPU card" else 2.0
                print(f"    envsnap {name:<28} {value:5.2f} s   {value / base:4.2f}x (target <= {target}x)")
        finally:
            os.chdir(here)


if __name__ == "__main__":
    main()
