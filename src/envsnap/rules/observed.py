"""What a pasted report observed outranks what a rule infers (issue 21, docs/compat-rules.md B6).

A report that says ``Is CUDA available: True`` (or shows a tensor on ``cuda:0``, or an app printing
``Device: cuda:0 NVIDIA ...``) has watched CUDA initialize. A rule that predicts CUDA cannot start
on that host (driver too old for the build, no driver, a library mismatch, a CPU-only or wrong-vendor
build) is then contradicted by the report itself — usually because the report's version strings
mean something else there (macOS prints the CUDA driver as ``1.1.0``; CUDA's minor-version
compatibility runs a 12.6 build on a 12.4 driver). Such errors are dropped; what the report saw
happen stands.
"""

from __future__ import annotations

from envsnap.rules import facts
from envsnap.snapshot.model import Finding, Snapshot

CONTRADICTED_BY_CUDA_AVAILABLE = frozenset(
    {
        "driver-too-old-for-cuda-build",
        "cpu-only-build-on-gpu-host",
        "build-vendor-mismatch",
        "nvidia-driver-not-found",
    }
)
"""Findings whose error says CUDA cannot initialize on this host. Their warnings stay (a 12.6 build on a
12.4 driver runs under minor-version compatibility, with its limits), and so do findings about what
happens later (an NVML mismatch after a driver update, kernels missing for the GPU)."""


def cuda_observed(snapshot: Snapshot) -> bool:
    """Whether an imported report states CUDA initialized (torch said it is available)."""
    origin = snapshot.meta.origin
    if origin is None or origin.kind != "import":
        return False
    torch = facts.torch(snapshot)
    return bool(torch is not None and torch.available is not None and torch.available.cuda)


def gate(snapshot: Snapshot, findings: list[Finding]) -> list[Finding]:
    """``findings`` without those the report's own observation contradicts."""
    if not cuda_observed(snapshot):
        return findings
    return [f for f in findings if not (f.severity == "error" and f.id in CONTRADICTED_BY_CUDA_AVAILABLE)]
