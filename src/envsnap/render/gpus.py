"""``envsnap gpus`` output: gpustat-like lines for people, JSON for programs.

One header line (host, time, drivers), one line per device (index, name, temperature,
utilization, memory used/total, power draw/limit) and one line per process under it (PID, user,
memory, command). Plain strings with ANSI colours, not Rich: the command is meant to start as
fast as ``gpustat`` and Rich's import alone costs more than a frame.

Colour only when asked (a terminal, no ``NO_COLOR``): the caller decides. Every string that came
from the system (device names, user names, command lines) goes through ``one_line``, so an ESC
in a process name is shown as ``\\x1b``, never sent to the terminal; Rich markup is just text
here. On a terminal each line is cut to its width, so a redraw never wraps.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

from envsnap.live.gpu_view import DeviceView, GpuView, ProcessView
from envsnap.snapshot.safe_text import one_line

MIB = 1024 * 1024
_RESET = "\x1b[0m"
_STYLES = {
    "index": "36",  # cyan
    "name": "34",  # blue
    "temp": "31",
    "temp_hot": "1;31",
    "util": "32",
    "util_busy": "1;32",
    "mem": "1;33",
    "mem_total": "33",
    "power": "35",
    "user": "2",  # dim
    "command": "36",
    "bad": "1;31",
}
HOT_C = 50
BUSY_PERCENT = 30


def _paint(text: str, style: str, colour: bool) -> str:
    return f"\x1b[{_STYLES[style]}m{text}{_RESET}" if colour else text


def _number(value: float | None, width: int) -> str:
    return f"{value:>{width}.0f}" if value is not None else f"{'?':>{width}}"


def _device_line(device: DeviceView, name_width: int, colour: bool) -> str:
    sample = device.sample
    index = _paint(f"[{sample.index}]", "index", colour)
    name = _paint(f"{one_line(sample.name or '?', 80):<{name_width}}", "name", colour)
    if sample.status != "ok":
        reason = one_line(sample.reason or "no reading", 200)
        return f"{index} {name} | {_paint(f'{sample.status}: {reason}', 'bad', colour)}"
    hot = sample.temperature_c is not None and sample.temperature_c >= HOT_C
    busy = sample.gpu_util_percent is not None and sample.gpu_util_percent >= BUSY_PERCENT
    temp = _paint(f"{_number(sample.temperature_c, 3)}°C", "temp_hot" if hot else "temp", colour)
    util = _paint(f"{_number(sample.gpu_util_percent, 3)} %", "util_busy" if busy else "util", colour)
    used = sample.memory_used_bytes / MIB if sample.memory_used_bytes is not None else None
    total = sample.memory_total_bytes / MIB if sample.memory_total_bytes is not None else None
    memory = (
        f"{_paint(_number(used, 6), 'mem', colour)} / {_paint(_number(total, 6), 'mem_total', colour)} MiB"
    )
    power = f"{_number(sample.power_draw_watts, 4)} / {_number(sample.power_limit_watts, 4)} W"
    return f"{index} {name} | {temp}, {util} | {memory} | {_paint(power, 'power', colour)}"


def _process_line(process: ProcessView, colour: bool) -> str:
    memory = _number(process.used_memory_bytes / MIB if process.used_memory_bytes is not None else None, 6)
    user = _paint(f"{one_line(process.user or '?', 32):<8}", "user", colour)
    command = _paint(one_line(process.command or "?"), "command", colour)
    return f"    └ {process.pid:>7} {user} {_paint(memory, 'mem', colour)} MiB  {command}"


def clip_line(line: str, width: int) -> str:
    """``line`` cut to ``width`` visible characters, colour codes kept whole (and reset)."""
    out: list[str] = []
    shown = 0
    position = 0
    while position < len(line):
        if line.startswith("\x1b[", position):
            end = line.index("m", position) + 1
            out.append(line[position:end])
            position = end
            continue
        if shown >= width:
            break
        out.append(line[position])
        shown += 1
        position += 1
    text = "".join(out)
    return text + _RESET if "\x1b[" in text and not text.endswith(_RESET) else text


def gpus_lines(
    view: GpuView, *, colour: bool = False, width: int | None = None, processes: bool = True
) -> list[str]:
    """The frame as lines (no newlines); each cut to ``width`` when given (a terminal)."""
    stamp = view.captured_at.replace("T", " ").rsplit(".", 1)[0].rstrip("Z") + " UTC"
    header = "  ".join([one_line(view.hostname, 64), stamp, *(one_line(d, 64) for d in view.drivers)])
    lines = [header]
    if not view.devices:
        lines.append("no GPU found (NVML, amdsmi and sysfs see none)")
    name_width = max((len(one_line(d.sample.name or "?", 80)) for d in view.devices), default=0)
    for device in view.devices:
        lines.append(_device_line(device, name_width, colour))
        if processes and device.processes:
            lines.extend(_process_line(process, colour) for process in device.processes)
    lines.extend(f"error: {one_line(error, 300)}" for error in view.errors)
    return [clip_line(line, width) for line in lines] if width is not None else lines


def _device_json(device: DeviceView, processes: bool) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(msgspec.structs.replace(device.sample, processes=None))
    if processes:
        data["processes"] = (
            None
            if device.processes is None
            else [
                {"pid": p.pid, "user": p.user, "command": p.command, "used_memory_bytes": p.used_memory_bytes}
                for p in device.processes
            ]
        )
    return data


def gpus_json(view: GpuView, *, processes: bool = True, indent: int | None = 2) -> str:
    """The frame as JSON (ASCII only, so control characters arrive as ``\\u`` escapes)."""
    data = {
        "hostname": view.hostname,
        "captured_at": view.captured_at,
        "drivers": list(view.drivers),
        "devices": [_device_json(device, processes) for device in view.devices],
        "errors": list(view.errors),
    }
    return json.dumps(data, ensure_ascii=True, indent=indent)


def frame_text(lines: Sequence[str]) -> str:
    """Lines joined for printing, newline-terminated."""
    return "\n".join(lines) + "\n"
