"""PLACEHOLDER (replaced by the frameworks probe work)."""

from __future__ import annotations

from envsnap.model import Frameworks, TorchInfo
from envsnap.probes.base import ProbeContext


def probe(ctx: ProbeContext) -> Frameworks:
    """Placeholder."""
    return Frameworks(torch=TorchInfo(status="skipped", reason="not implemented yet"))
