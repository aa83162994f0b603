"""PLACEHOLDER (replaced by the toolkits probe work)."""

from __future__ import annotations

from envsnap.model import CudaToolkit, Toolkits
from envsnap.probes.base import ProbeContext


def probe(ctx: ProbeContext) -> Toolkits:
    """Placeholder."""
    return Toolkits(cuda=CudaToolkit(status="skipped", reason="not implemented yet"))
