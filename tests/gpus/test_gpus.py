"""``envsnap gpus``: the stub two-H100 host end to end, AMD through the fake amdsmi, replayed hosts,
colour rules, the watch loop, and hostile process names and command lines.

Device values come from the H100 capture the NVML stub was written from (tests/data/nvidia/...,
see tests/fakes/nvml_stub.c), the V100/MI250 replays from real captures (tests/fakes/fake_telemetry.py).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest

from envsnap.commands.gpus_terminal import CLEAR_BELOW, CLEAR_EOL, HOME, SHOW_CURSOR, fit_height, watch
from envsnap.live.gpu_view import GpuReader, ProcessTable
from envsnap.probes.amd.smi import AmdSmiTelemetry
from envsnap.render.gpus import gpus_json, gpus_lines
from envsnap.snapshot.model import DeviceSample, GpuProcess
from tests.fakes import fake_amdsmi
from tests.fakes.fake_telemetry import LosingSource, ReplaySource, v100_host
from tests.fakes.nvml_stub import build_nvml_stub

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_nvml_stub(tmp_path_factory.mktemp("nvml-stub"))


def _gpus(stub: Path | None, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = dict(os.environ, **env)
    environ.pop("NO_COLOR", None) if "NO_COLOR" not in env else None
    if stub is not None:
        environ["LD_LIBRARY_PATH"] = str(stub)
    else:
        environ.pop("LD_LIBRARY_PATH", None)
    return subprocess.run(
        [sys.executable, "-m", "envsnap", "gpus", *argv],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
        check=False,
    )


def test_the_stub_two_h100_host_shows_both_devices_with_memory_and_utilization(stub: Path) -> None:
    import psutil

    # The capture's PIDs are joined with this host's processes, as on a real GPU host: one that
    # happens to be alive here (a CI runner's own process) shows its own command instead.
    live = {pid for pid in (11327, 11328, 11345) if psutil.pid_exists(pid)}
    done = _gpus(stub)
    live |= {pid for pid in (11327, 11328, 11345) if psutil.pid_exists(pid)}
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "NVIDIA 590.48.01" in lines[0]
    # From the capture: GPU 0 idle (41 °C, 0 %, 0 MiB used), GPU 1 loaded (59 °C, 100 %, 19818 MiB).
    assert re.fullmatch(
        r"\[0\] NVIDIA H100 80GB HBM3 \|\s+41°C,\s+0 % \|\s+0 /\s+81559 MiB \|\s+70 /\s+700 W", lines[1]
    )
    assert re.fullmatch(
        r"\[1\] NVIDIA H100 80GB HBM3 \|\s+59°C,\s+100 % \|\s+19818 /\s+81559 MiB \|\s+629 /\s+700 W",
        lines[2],
    )
    processes = lines[3:]
    assert [re.split(r"\s+", line.strip())[1] for line in processes] == ["11327", "11328", "11345"]
    captured = {11327: "/root/tools/memhog", 11328: "/root/tools/memhog", 11345: "./gpu_burn"}
    for line in processes:
        pid = int(re.split(r"\s+", line.strip())[1])
        if pid not in live:
            assert line.split()[-1] == captured[pid]
    assert [int(re.split(r"\s+", line.strip())[3]) for line in processes] == [2566, 1542, 15690]
    assert not ANSI.search(done.stdout)  # piped: no colour, without NO_COLOR too


def test_json_and_no_processes_on_the_stub(stub: Path) -> None:
    data = json.loads(_gpus(stub, "--json").stdout)
    assert [d["index"] for d in data["devices"]] == [0, 1]
    assert data["devices"][1]["memory_used_bytes"] == 19818 * MIB
    assert data["devices"][1]["gpu_util_percent"] == 100.0
    assert [p["pid"] for p in data["devices"][1]["processes"]] == [11327, 11328, 11345]
    assert data["drivers"] == ["NVIDIA 590.48.01"]
    bare = _gpus(stub, "--no-processes")
    assert bare.returncode == 0
    assert len(bare.stdout.splitlines()) == 3
    assert "memhog" not in bare.stdout
    assert "processes" not in json.loads(_gpus(stub, "--json", "--no-processes").stdout)["devices"][0]


def test_a_host_without_gpus_says_so_and_exits_0() -> None:
    done = _gpus(None)
    assert done.returncode == 0, done.stderr
    assert "no GPU found" in done.stdout
    empty = _gpus(None, "--json")
    assert json.loads(empty.stdout)["devices"] == []
    assert "no GPU found" in empty.stderr


def _run_in_pty(
    argv: list[str], env: dict[str, str], *, interrupt_after: float | None = None
) -> tuple[int, str]:
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        argv, stdout=follower, stderr=follower, stdin=follower, env=env, close_fds=True
    )
    os.close(follower)
    output = b""
    deadline = time.monotonic() + 60
    interrupted = False
    while time.monotonic() < deadline:
        if interrupt_after is not None and not interrupted and b"H100" in output and b"\x1b[H" in output:
            time.sleep(interrupt_after)
            process.send_signal(signal.SIGINT)
            interrupted = True
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        elif process.poll() is not None:
            break
    code = process.wait(timeout=30)
    os.close(leader)
    return code, output.decode("utf-8", "replace")


def test_colour_on_a_terminal_and_never_with_no_color(stub: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"LD_LIBRARY_PATH": str(stub)}
    code, coloured = _run_in_pty([sys.executable, "-m", "envsnap", "gpus"], env)
    assert code == 0
    assert "\x1b[" in coloured
    assert "H100" in coloured
    code, plain = _run_in_pty([sys.executable, "-m", "envsnap", "gpus"], env | {"NO_COLOR": "1"})
    assert code == 0
    assert "H100" in plain
    assert not ANSI.search(plain)


def test_watch_redraws_in_place_until_ctrl_c_and_exits_0(stub: Path) -> None:
    env = dict(os.environ, LD_LIBRARY_PATH=str(stub), COLUMNS="120", LINES="40")
    code, output = _run_in_pty(
        [sys.executable, "-m", "envsnap", "gpus", "--watch", "0.2"], env, interrupt_after=0.7
    )
    assert code == 0, output
    assert output.count(HOME) >= 2  # several frames, each drawn from the top-left corner
    assert CLEAR_EOL in output
    assert CLEAR_BELOW in output
    assert output.rstrip().endswith(SHOW_CURSOR)  # the cursor comes back however the loop ends
    assert "Traceback" not in output
    assert "interrupted" not in output


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _reader(*sources: object, nested: bool = True) -> GpuReader:
    return GpuReader(list(sources), ProcessTable(nested=nested))  # type: ignore[arg-type]


def test_watch_off_a_terminal_appends_frames_and_json_lines() -> None:
    out = io.StringIO()
    assert watch(_reader(ReplaySource(v100_host())), 1.0, out, frames=3, sleep=lambda s: None) == 0
    frames = out.getvalue().split("\n\n")
    assert len([f for f in frames if f.strip()]) == 3
    assert HOME not in out.getvalue()
    out = io.StringIO()
    watch(_reader(ReplaySource(v100_host())), 1.0, out, as_json=True, frames=3, sleep=lambda s: None)
    objects = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(objects) == 3
    assert all(len(o["devices"]) == 8 for o in objects)
    # The replay varies readings from frame to frame: the frames are read again, not repeated.
    assert objects[0]["devices"][0]["gpu_util_percent"] != objects[1]["devices"][0]["gpu_util_percent"] or (
        objects[0]["devices"][0]["memory_used_bytes"] != objects[1]["devices"][0]["memory_used_bytes"]
    )


def test_watch_on_a_terminal_fits_the_frame_and_waits_the_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(80, 24): os.terminal_size((40, 6)))
    out, waits = _Terminal(), list[float]()
    now = iter([0.0, 0.25, 1.0, 1.5])
    watch(_reader(ReplaySource(v100_host())), 1.0, out, frames=2, sleep=waits.append, clock=lambda: next(now))
    assert waits == [0.75]  # interval minus the time the frame took
    frame = out.getvalue().split(HOME)[-1]
    lines = [ANSI.sub("", line) for line in frame.split("\n") if ANSI.sub("", line)]
    assert len(lines) == 5
    shown = gpus_lines(_reader(ReplaySource(v100_host())).read())
    assert lines[-1] == f"… {len(shown) - 4} more lines (a taller terminal shows them)"[:40]
    assert all(len(line) <= 40 for line in lines)


def test_ctrl_c_in_the_loop_exits_0_and_restores_the_cursor() -> None:
    out = _Terminal()

    def interrupted(seconds: float) -> None:
        raise KeyboardInterrupt

    assert watch(_reader(ReplaySource(v100_host())), 1.0, out, sleep=interrupted) == 0
    assert out.getvalue().endswith(SHOW_CURSOR)


def test_fit_height_keeps_short_frames() -> None:
    assert fit_height(["a", "b"], 24) == ["a", "b"]
    assert fit_height([str(i) for i in range(10)], 5) == [
        "0",
        "1",
        "2",
        "… 7 more lines (a taller terminal shows them)",
    ]


def test_amd_devices_through_amdsmi() -> None:
    source = AmdSmiTelemetry(fake_amdsmi.session(fake_amdsmi.mi250_host()))
    view = _reader(source).read()
    lines = gpus_lines(view)
    assert "AMD amdgpu 6.2.4" in lines[0]  # the driver the capture's amd-smi reported
    devices = [line for line in lines if line.startswith("[")]
    assert len(devices) == len(view.devices) >= 2
    assert all("MiB" in line and "°C" in line for line in devices)


def test_amd_devices_through_sysfs() -> None:
    from envsnap.probes.amd.probe import open_telemetry
    from envsnap.probes.base import ProbeContext

    root = Path(__file__).resolve().parents[1] / "data" / "sysfs" / "mi100x4"
    source = open_telemetry(ProbeContext(root=root, environ={}))
    assert source is not None
    assert source.name == "sysfs"
    lines = gpus_lines(_reader(source).read())
    assert "AMD amdgpu 6.3.6" in lines[0]  # the capture's rocm-smi driver line
    devices = [line for line in lines if line.startswith("[")]
    assert len(devices) == 4  # four MI100s, as rocm-smi listed them
    assert all(re.search(r"\d+ /\s+\d+ MiB", line) for line in devices)


def test_a_lost_gpu_is_a_line_that_says_so() -> None:
    reader = _reader(LosingSource(v100_host(), index=3, after=0))
    reader.read()
    lines = gpus_lines(reader.read())
    assert any(line.startswith("[3]") and "lost: GPU is lost" in line for line in lines)


def _one_device(processes: tuple[GpuProcess, ...]) -> ReplaySource:
    host = v100_host()
    device = msgspec.structs.replace(host.devices[0], processes=processes)
    return ReplaySource(dataclasses.replace(host, devices=(device,)), cycle=False)


def test_hostile_process_names_are_inert_and_secrets_redacted() -> None:
    token = "hf_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb"
    evil = f"\x1b]0;owned\x07[bold red]x[/] \u202egpj.exe\nforged line --hf-token {token}"
    view = _reader(_one_device((GpuProcess(pid=2**22 + 7, used_memory_bytes=MIB, name=evil),))).read()
    for text in ("\n".join(gpus_lines(view, colour=True)), gpus_json(view)):
        visible = ANSI.sub("", text)
        assert "\x1b]" not in visible
        assert "\u202e" not in visible
        assert "\x07" not in visible
        assert "hf_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb" not in text
    lines = gpus_lines(view)
    assert len(lines) == 3  # header, device, one process line: the newline forged nothing
    assert "[bold red]x[/]" in lines[2]
    assert "\\x1b" in lines[2]


def test_a_real_process_shows_its_user_and_redacted_command_line() -> None:
    secret = "s3cr3t-Pa55w0rd-value"
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "--password", secret, "\x1b[31m[red]x"]
    )
    try:
        time.sleep(0.2)
        source = _one_device((GpuProcess(pid=child.pid, used_memory_bytes=512 * MIB, name="python"),))
        view = _reader(source, nested=False).read()
        process = view.devices[0].processes[0]  # type: ignore[index]
        import getpass

        assert process.user == getpass.getuser()
        assert process.command is not None
        assert "time.sleep(60)" in process.command
        assert secret not in process.command
        assert "<redacted>" in process.command
        line = gpus_lines(view)[2]
        assert "\x1b[31m" not in line
        assert "\\x1b[31m[red]x" in line
        assert "512 MiB" in line
    finally:
        child.kill()
        child.wait()


def test_in_a_nested_pid_namespace_driver_pids_are_not_looked_up() -> None:
    # The driver's PID is a host PID: here it would name an unrelated process (ourselves).
    source = _one_device((GpuProcess(pid=os.getpid(), used_memory_bytes=MIB, name="/opt/app/serve"),))
    view = _reader(source, nested=True).read()
    process = view.devices[0].processes[0]  # type: ignore[index]
    assert (process.user, process.command) == (None, "/opt/app/serve")


def test_a_terminal_line_never_wraps() -> None:
    source = _one_device((GpuProcess(pid=1, used_memory_bytes=MIB, name="x" * 500),))
    lines = gpus_lines(_reader(source).read(), colour=True, width=60)
    assert all(len(ANSI.sub("", line)) <= 60 for line in lines)
    assert all(line.count("\x1b[") % 2 == 0 or line.endswith("\x1b[0m") for line in lines)


def test_device_sample_json_keeps_model_names() -> None:
    sample = DeviceSample(vendor="nvidia", index=0, name="x", memory_used_bytes=1)
    view = _reader(ReplaySource(dataclasses.replace(v100_host(), devices=(sample,)), cycle=False)).read()
    data = json.loads(gpus_json(view))
    assert data["devices"][0] == {
        "vendor": "nvidia",
        "index": 0,
        "name": "x",
        "memory_used_bytes": 1,
        "processes": None,
    }
