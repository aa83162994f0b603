"""PLACEHOLDER (replaced by the python/packages probe work)."""

from __future__ import annotations

from dataclasses import dataclass

from envsnap.model import Package, PythonEnv
from envsnap.probes.base import ProbeContext


@dataclass(frozen=True)
class PythonReading:
    """The interpreter section and its installed distributions."""

    python: PythonEnv
    packages: tuple[Package, ...] | None


def probe(ctx: ProbeContext) -> PythonReading:
    """Placeholder."""
    return failed("not implemented yet")


def failed(reason: str) -> PythonReading:
    """The reading recorded when the probe cannot finish."""
    return PythonReading(PythonEnv(status="failed", reason=reason), None)
