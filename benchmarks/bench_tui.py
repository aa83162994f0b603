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

Run from the repository root: ``python benchmarks/bench_tui.py`` (add ``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import fcntl
import os
import pty
import select
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
                raise RuntimeError("the app did not report its CPU time")
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
    args = parser.parse_args()
    reps, duration = (3, 10.0) if args.quick else (args.reps, args.duration)
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

    with tempfile.TemporaryDirectory() as tmp:
        base_pct, _ = cpu_percent(MINIMAL_IDLE_APP, Path(tmp), duration)
        envsnap_pct, wall = cpu_percent(DEVICES_APP, Path(tmp), duration)
    print(f"(b) CPU over {wall:.0f} s, percent of one core:")
    print(f"    minimal Textual app, idle (baseline)        {base_pct:6.2f} %")
    print(f"    envsnap Devices tab, 8x V100, 1 s refresh   {envsnap_pct:6.2f} %   (target < 2 %)")
    print(f"    ratio                                       {envsnap_pct / max(base_pct, 1e-9):6.1f}x")


if __name__ == "__main__":
    main()
