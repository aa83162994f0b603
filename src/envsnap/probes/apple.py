"""PLACEHOLDER (replaced by the apple probe work)."""

from __future__ import annotations

from envsnap.model import MpsInfo
from envsnap.probes.base import ProbeContext


def probe(ctx: ProbeContext) -> MpsInfo:
    """Placeholder."""
    return MpsInfo(status="skipped", reason="not implemented yet")
