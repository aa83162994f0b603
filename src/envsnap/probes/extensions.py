"""PLACEHOLDER (replaced by the extensions probe work)."""

from __future__ import annotations

from envsnap.model import Extensions
from envsnap.probes.base import ProbeContext


def probe(ctx: ProbeContext) -> Extensions:
    """Placeholder."""
    return Extensions(status="skipped", reason="not implemented yet")
