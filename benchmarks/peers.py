"""Shared helpers for the side-by-side benchmarks: the peer tools, the NVML stub, tmux, /proc.

The peers (nvitop 1.7.2 and gpustat) live in their own virtual environment, never in envsnap's:
``$ENVSNAP_PEER_VENV`` if set, else ``.peer-venv`` in the repository root. ``--install-peers``
on a benchmark creates it with pip. Without it, a benchmark that needs a peer says so and exits 0.

Live NVML comes from the stub ``libnvidia-ml.so.1`` the tests compile (two H100s from a real
capture, tests/fakes/nvml_stub.c), here with the few functions gpustat also needs
(benchmarks/nvml_peer_extras.c). envsnap and the peers load it through the real nvidia-ml-py,
pointed there by ``LD_LIBRARY_PATH``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PEER_VERSIONS = {"nvitop": "nvitop==1.7.2", "gpustat": "gpustat==1.1.1"}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def peer_venv() -> Path:
    """Where the peers are installed."""
    return Path(os.environ.get("ENVSNAP_PEER_VENV", REPO / ".peer-venv"))


def find_peer(tool: str, *, install: bool = False) -> Path | None:
    """The peer's executable, installing it first when asked; None when it is not there."""
    exe = peer_venv() / "bin" / tool
    if exe.exists():
        return exe
    if not install:
        return None
    venv = peer_venv()
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *PEER_VERSIONS.values()], check=True
    )
    return exe if exe.exists() else None


def peer_missing(tool: str) -> None:
    """Say clearly that a peer is absent, and how to get it; the benchmark then exits 0."""
    print(
        f"SKIPPED: {tool} is not installed in {peer_venv()} (the peer these figures are measured against).\n"
        f"  Install it with --install-peers, or: python -m venv {peer_venv()} && "
        f"{peer_venv()}/bin/pip install {' '.join(PEER_VERSIONS.values())}"
    )


def build_stub(folder: Path) -> Path:
    """Compile the NVML stub (with the peers' extra functions) into ``folder``; return ``folder``."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise SystemExit("SKIPPED: building the NVML stub needs gcc")
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            compiler,
            "-shared",
            "-fPIC",
            "-O1",
            "-o",
            str(folder / "libnvidia-ml.so.1"),
            str(REPO / "benchmarks" / "nvml_peer_extras.c"),
        ],
        check=True,
    )
    return folder


def stub_env(stub: Path, **extra: str) -> dict[str, str]:
    """The environment for a process that should see the two stub H100s."""
    env = {**os.environ, "LD_LIBRARY_PATH": str(stub), "TERM": "xterm-256color", **extra}
    env.pop("NO_COLOR", None)
    return env


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (``/proc/<pid>/stat`` fields 14 and 15)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mib(pid: int) -> float:
    """Resident memory of a process now, MiB (``VmRSS`` of ``/proc/<pid>/status``)."""
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Tmux:
    """One detached tmux session of a given size running one command, on a private server socket."""

    def __init__(self, name: str, command: list[str], cols: int, rows: int, env: dict[str, str]) -> None:
        self.socket = f"envsnap-bench-{os.getpid()}-{name}"
        self.name = name
        quoted = " ".join(_quote(part) for part in command)
        env_args = [
            arg
            for key in ("LD_LIBRARY_PATH", "TERM", "PYTHONPATH")
            if key in env
            for arg in ("-e", f"{key}={env[key]}")
        ]
        self._tmux(
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            str(cols),
            "-y",
            str(rows),
            *env_args,
            f"exec {quoted}",
            env=env,
        )
        self._tmux("set-option", "-t", name, "remain-on-exit", "on")
        self.pid = int(self._tmux("list-panes", "-t", name, "-F", "#{pane_pid}").split()[0])

    def _tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True, env=env
        )
        return done.stdout

    def screen(self) -> str:
        """The visible text of the pane."""
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        """Type keys into the pane."""
        self._tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, marker: str, timeout_s: float, poll_s: float = 0.02) -> float | None:
        """Seconds until ``marker`` shows on the screen (from now), or None at the timeout."""
        start = time.monotonic()
        while time.monotonic() - start < timeout_s:
            if marker in self.screen():
                return time.monotonic() - start
            time.sleep(poll_s)
        return None

    def close(self) -> None:
        """Kill the session and its server."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)


def _quote(part: str) -> str:
    import shlex

    return shlex.quote(part)
