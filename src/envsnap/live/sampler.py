"""The one live telemetry sampler, shared by the TUI, ``envsnap run``/``watch`` and ``save``.

A Sampler polls vendor backends (``TelemetrySource``: NVML, amdsmi/sysfs, or fakes in tests) and
returns a ``model.Sample``. Backends are opened once and kept: NVML is initialised once per
process, never per sample. A backend that raises during a read is reported in ``Sample.errors``
and the other backends' devices still come through; a single lost GPU is the backend's business
(it returns that device with ``status="lost"``).

The sampler itself is synchronous on purpose. Callers decide where it runs (a thread worker in
the TUI, a loop thread in ``envsnap run``) and schedule the next sample only after the previous
one returned, so a hung driver call can never pile up threads.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from datetime import datetime, timezone

from envsnap.probes.base import TelemetrySource
from envsnap.snapshot.model import DeviceSample, Sample


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Sampler:
    """Reads all sources into one Sample per call."""

    def __init__(self, sources: Sequence[TelemetrySource], clock: Callable[[], str] = _utc_now) -> None:
        self._sources = list(sources)
        self._clock = clock

    @property
    def sources(self) -> tuple[TelemetrySource, ...]:
        """The backends this sampler polls."""
        return tuple(self._sources)

    def sample(self) -> Sample:
        """Read every source once; a failing source becomes an entry in ``errors``."""
        captured_at = self._clock()
        devices: list[DeviceSample] = []
        errors: list[str] = []
        for source in self._sources:
            try:
                devices.extend(source.read())
            except Exception as err:  # a backend failing after start is a state to show, not a crash
                errors.append(f"{source.name}: {err}")
        devices.sort(key=lambda d: (d.vendor, d.pci_bus_id or "", d.index))
        return Sample(captured_at=captured_at, devices=tuple(devices), errors=tuple(errors) or None)

    def close(self) -> None:
        """Close every source, ignoring errors from backends that are already gone."""
        for source in self._sources:
            with contextlib.suppress(Exception):
                source.close()
        self._sources.clear()
