"""PLACEHOLDER (replaced by the intel probe work)."""

from __future__ import annotations

from envsnap.model import IntelInfo
from envsnap.probes.base import ProbeContext


def probe(ctx: ProbeContext) -> IntelInfo:
    """Placeholder."""
    return IntelInfo(status="skipped", reason="not implemented yet")
