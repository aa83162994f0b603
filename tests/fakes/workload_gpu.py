"""Recorded GPUs for the CPU-fallback tests, optionally "held" by the workload under test.

Every value comes from a real ``nvidia-smi -q -x`` capture in tests/data/nvidia (see
tests/data/SOURCES.md), parsed by envsnap's own parser. The one substitution is the PID: a test
that needs "the driver lists our workload" gives the capture's compute process the PID of the
child it started (its recorded memory use unchanged), as a real driver would report it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from envsnap.live.sampler import Sampler
from envsnap.probes.nvidia.smi_xml import parse
from envsnap.snapshot.model import DeviceSample

DATA = Path(__file__).resolve().parents[1] / "data" / "nvidia"
IDLE_T4 = DATA / "tesla-t4_driver-515.105.01_dtd-v11.xml"
"""Tesla T4 at 0% utilization; Xorg (PID 675, graphics) and python (PID 5762, compute, 1005 MiB)."""
BUSY_V100 = DATA / "tesla-v100-pcie-32gb_driver-460.39_dtd-v11.xml"
"""Tesla V100-PCIE-32GB at 91% utilization; four compute workers (PIDs 4027538, 4027590, 4157880, 4165319)."""


def recorded(path: Path) -> tuple[DeviceSample, ...]:
    """The capture's devices, one sample each."""
    return parse(path.read_text(encoding="utf-8")).samples


class RecordedGpu:
    """A TelemetrySource replaying one capture; ``claim`` (when given) supplies the workload's PID.

    Args:
        path: the ``nvidia-smi -q -x`` file.
        claim: returns the PID to put in place of the capture's first compute process, or None
            while the workload hasn't started.
    """

    name = "nvml"

    def __init__(self, path: Path, claim: Callable[[], int | None] | None = None) -> None:
        self._devices = recorded(path)
        self._claim = claim
        self.reads = 0
        self.closed = False

    def read(self) -> tuple[DeviceSample, ...]:
        self.reads += 1
        pid = self._claim() if self._claim is not None else None
        if pid is None:
            return self._devices
        return tuple(self._claimed(device, pid) for device in self._devices)

    @staticmethod
    def _claimed(device: DeviceSample, pid: int) -> DeviceSample:
        processes = list(device.processes or ())
        for i, process in enumerate(processes):
            if process.kind == "compute":
                processes[i] = msgspec.structs.replace(process, pid=pid)
                break
        return msgspec.structs.replace(device, processes=tuple(processes))

    def close(self) -> None:
        self.closed = True


def sampler(path: Path, claim: Callable[[], int | None] | None = None) -> tuple[Sampler, RecordedGpu]:
    """A real Sampler over one recorded GPU, and the source (to check it was read and closed)."""
    source = RecordedGpu(path, claim)
    return Sampler([source]), source
