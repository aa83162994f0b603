"""Does the watched process tree hold memory on a GPU? And can that question be answered here?

GPU drivers list the processes holding device memory by PID. NVIDIA's driver does not support
PID namespaces: inside a container it still reports *host* PIDs (NVIDIA/nvidia-docker#1483), which
mean nothing in the container's namespace. A naive "is my PID in the list" then answers "no" for a
job that is using the GPU just fine. So when none of the tree's PIDs is listed, this module checks
whether the listed PIDs are even visible here, and says "uncertain" (with the reason) instead of
"absent" when they are not.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from envsnap.live.run_report import Attribution
from envsnap.snapshot.model import DeviceSample


@dataclass(frozen=True)
class GpuHolding:
    """Attribution of the tree's GPU use at one sample."""

    attribution: Attribution
    reason: str | None
    tree_memory_bytes: dict[int, int]
    """Position of the device in the sample → bytes held by the tree there (only devices it holds)."""


def nested_pid_namespace(proc_root: Path = Path("/proc")) -> bool:
    """Whether this process sits in a PID namespace below the one ``proc_root`` shows.

    ``NSpid`` in ``/proc/self/status`` lists one PID per namespace level; more than one means the
    PIDs a driver reports (outermost level) are not ours.
    """
    try:
        status = (proc_root / "self" / "status").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("NSpid:"):
            return len(line.split()[1:]) > 1
    return False


def holding(
    devices: Iterable[DeviceSample],
    tree_pids: Collection[int],
    *,
    proc_root: Path = Path("/proc"),
    nested_namespace: bool = False,
) -> GpuHolding:
    """Attribute GPU memory to the tree for one sample.

    Args:
        devices: the devices of one Sampler sample (already filtered to the expected vendor).
        tree_pids: every PID of the watched tree at that sample.
        proc_root: where to look for ``/proc/<pid>`` of the driver's PIDs (tests use a fake tree).
        nested_namespace: result of ``nested_pid_namespace()``, computed once per run.
    """
    devices = list(devices)
    if not devices:
        return GpuHolding("no-gpu", None, {})
    held: dict[int, int] = {}
    listed: set[int] = set()
    unreported = 0
    for position, device in enumerate(devices):
        if device.processes is None:
            unreported += 1
            continue
        for process in device.processes:
            listed.add(process.pid)
            if process.pid in tree_pids:
                held[position] = held.get(position, 0) + (process.used_memory_bytes or 0)
    if nested_namespace:
        return GpuHolding(
            "uncertain",
            "envsnap runs in a nested PID namespace (NSpid has several levels): the driver reports "
            "host PIDs, which can't be matched to the tree",
            held,
        )
    if held:
        return GpuHolding("found", None, held)
    invisible = sorted(pid for pid in listed if not (proc_root / str(pid)).exists())
    if invisible:
        shown = ", ".join(str(pid) for pid in invisible[:5]) + (" …" if len(invisible) > 5 else "")
        return GpuHolding(
            "uncertain",
            f"GPU process PIDs {shown} don't exist in this PID namespace (inside a container the driver "
            "reports host PIDs); run with --pid=host to attribute GPU memory",
            held,
        )
    if unreported == len(devices):
        return GpuHolding("unavailable", "the GPU backend does not report which processes hold memory", held)
    return GpuHolding("absent", None, held)
