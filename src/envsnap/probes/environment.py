"""PLACEHOLDER (replaced by the environment probe work)."""

from __future__ import annotations

from envsnap.model import Environment
from envsnap.probes.base import ProbeContext


def probe(ctx: ProbeContext) -> Environment:
    """Placeholder."""
    return Environment(status="skipped", reason="not implemented yet")
