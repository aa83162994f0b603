"""The Textual floor for ``envsnap tui`` start-up (issue 24): a minimal Textual app that reads the GPU
names through NVML on mount and shows them, measured side by side with envsnap's first GPU card.

Textual's own import costs ~0.3 s and ~32 MB, so a curses tool's figures (nvitop) are out of reach
for any Textual app; this app is the fairest floor: the same toolkit, the same NVML library
(nvidia-ml-py, on the stub two-H100 ``libnvidia-ml.so.1``), nothing else. Both programs run in a
pseudo-terminal of the same size; the clock runs from spawn until the GPU name first appears in
what the program wrote to the terminal, and the resident memory is read from ``/proc`` at that
moment and again after SETTLE_S (envsnap's probes have run by then).

Used by benchmarks/bench_tui.py part (e); runnable alone: ``python benchmarks/tui_floor.py``.
"""

from __future__ import annotations

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
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COLS, ROWS = 160, 48
SETTLE_S = 5.0
"""Seconds after the first GPU card before the settled RSS is read (envsnap's probes are done)."""

FLOOR_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static

    class Floor(App):
        def compose(self):
            yield Static("reading GPUs", id="gpus")

        def on_mount(self):
            import pynvml

            pynvml.nvmlInit()
            names = []
            for index in range(pynvml.nvmlDeviceGetCount()):
                handle = pynvml.nvmlDeviceGetHandleByIndex(index)
                names.append(f"GPU {index} · {pynvml.nvmlDeviceGetName(handle)}")
            self.query_one("#gpus", Static).update("\\n".join(names))

    Floor().run()
    """
)
"""The floor: Textual plus nvidia-ml-py, GPU names on screen once read."""


@dataclass(frozen=True)
class Start:
    """One start-up measurement."""

    seconds: float
    """From spawn to the GPU name in the terminal output."""
    rss_mib: float
    """Resident memory when the GPU name appeared."""
    settled_rss_mib: float
    """Resident memory SETTLE_S later."""


def rss_mib(pid: int) -> float:
    """``VmRSS`` of a process, MiB (0 when it has exited)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def measure(argv: list[str], marker: bytes, env: dict[str, str], cwd: Path, keys: bytes = b"") -> Start:
    """Spawn ``argv`` in a COLS×ROWS pty (``keys`` typed at once) and time ``marker``'s first appearance."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True
    )
    os.close(slave)
    if keys:
        os.write(master, keys)  # typed before the app reads: the terminal holds them, as in a person's hands
    seen = b""
    try:
        while marker not in seen:
            if time.perf_counter() - start > 60:
                raise RuntimeError(f"{argv}: {marker!r} not shown in 60 s; last output {seen[-300:]!r}")
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                with contextlib.suppress(OSError):
                    # Keep only a tail: enough to hold a marker split across two reads.
                    seen = seen[-4096:] + os.read(master, 65536)
        seconds = time.perf_counter() - start
        first_rss = rss_mib(proc.pid)
        deadline = time.perf_counter() + SETTLE_S
        while time.perf_counter() < deadline:  # a terminal keeps reading what the app writes
            if select.select([master], [], [], 0.1)[0]:
                with contextlib.suppress(OSError):
                    os.read(master, 65536)
        return Start(seconds, first_rss, rss_mib(proc.pid))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)


def floor_against_envsnap(reps: int, stub: Path) -> dict[str, list[Start]]:
    """Interleaved runs of the floor app and ``envsnap tui`` (key 2: the Devices tab) on the stub."""
    env = {
        **os.environ,
        "LD_LIBRARY_PATH": str(stub),
        "TERM": "xterm-256color",
        "PYTHONPATH": str(REPO / "src"),
    }
    env.pop("NO_COLOR", None)
    results: dict[str, list[Start]] = {"floor": [], "envsnap": []}
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        script = cwd / "floor_app.py"
        script.write_text(FLOOR_APP, encoding="utf-8")
        for _ in range(reps):
            results["floor"].append(
                measure([sys.executable, str(script)], b"GPU 0 \xc2\xb7 NVIDIA H100", env, cwd)
            )
            results["envsnap"].append(
                measure(
                    [sys.executable, "-m", "envsnap", "tui"], b"NVIDIA 0 \xc2\xb7 NVIDIA H100", env, cwd, b"2"
                )
            )
    return results


def report(results: dict[str, list[Start]]) -> None:
    """Medians and ratios against the floor."""
    med = {
        name: (
            statistics.median(s.seconds for s in runs),
            statistics.median(s.rss_mib for s in runs),
            statistics.median(s.settled_rss_mib for s in runs),
        )
        for name, runs in results.items()
    }
    base = med["floor"]
    reps = len(results["floor"])
    print(f"(e) start-up against the Textual floor, {COLS}x{ROWS} pty, stub 2x H100, median of {reps}:")
    print("                                       GPU on screen   RSS then   RSS +5 s")
    for name, label in (
        ("floor", "minimal Textual NVML app (floor)"),
        ("envsnap", "envsnap tui, first GPU card"),
    ):
        t, rss, settled = med[name]
        print(f"    {label:<34} {t * 1000:7.0f} ms   {rss:6.1f} MiB {settled:6.1f} MiB")
    t, rss, settled = med["envsnap"]
    print(
        f"    ratio                              {t / base[0]:7.2f}x      {rss / base[1]:6.2f}x    "
        f"{settled / base[2]:6.2f}x   (target <= 1.3x)"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import peers

    with tempfile.TemporaryDirectory() as folder:
        report(
            floor_against_envsnap(
                int(sys.argv[1]) if len(sys.argv) > 1 else 5, peers.build_stub(Path(folder))
            )
        )
