"""The live NVML telemetry source the sampler polls (the TUI, ``envsnap run`` and ``watch``).

nvidia.py opens it (``open_telemetry``): NVML started once for the process, handles and device
identities fetched once. A read then asks each GPU only for live values, through the same
``Query`` the probe uses, so NVML's error classes stay in nvidia.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from envsnap.probes.nvidia import nvml_fields
from envsnap.probes.nvidia.nvml_fields import DeviceGone
from envsnap.snapshot.model import DeviceSample, DeviceStatus


@dataclass
class Tracked:
    """A GPU the source polls: its handle (None if it never opened) and identity."""

    index: int
    handle: Any
    ident: dict[str, Any] = field(default_factory=dict)
    status: DeviceStatus = "ok"
    reason: str | None = None


class NvmlTelemetry:
    """Live NVML telemetry for the sampler: one handle pass per GPU per read.

    A GPU that is lost comes back as a sample with status ``lost``; the others are read normally.
    """

    name: str = "nvml"

    def __init__(
        self,
        query_for: Callable[[Any], nvml_fields.Query],
        system: nvml_fields.SystemQuery,
        tracked: list[Tracked],
        memory_v2: int | None,
    ) -> None:
        self._query_for = query_for
        self._system = system
        self._tracked = tracked
        self._v2 = memory_v2
        self._closed = False

    def driver_version(self) -> str | None:
        """The driver NVML talks to (``590.48.01``), for a header line; None when NVML won't say."""
        version = self._system("nvmlSystemGetDriverVersion")
        return version.decode() if isinstance(version, bytes) else version

    def read(self) -> tuple[DeviceSample, ...]:
        """One sample per GPU. Raises RuntimeError after ``close()``."""
        if self._closed:
            raise RuntimeError("the NVML telemetry source is closed")
        samples: list[DeviceSample] = []
        for gpu in self._tracked:
            status, reason = gpu.status, gpu.reason
            if gpu.handle is not None:
                try:
                    query = self._query_for(gpu.handle)
                    samples.append(nvml_fields.sample(query, self._system, gpu.index, gpu.ident, self._v2))
                    continue
                except DeviceGone as gone:
                    status, reason = gone.status, gone.reason
            samples.append(
                DeviceSample(vendor="nvidia", index=gpu.index, **gpu.ident, status=status, reason=reason)
            )
        return tuple(samples)

    def close(self) -> None:
        """Stop this source. NVML itself stays initialised: the process-wide session owns it."""
        self._closed = True
