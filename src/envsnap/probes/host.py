"""PLACEHOLDER (replaced by the host probe work)."""

from __future__ import annotations

from envsnap.model import Host
from envsnap.probes.base import ProbeContext


def probe(ctx: ProbeContext) -> Host:
    """Placeholder."""
    return Host(status="skipped", reason="not implemented yet")
