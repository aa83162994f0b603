"""CUDA API calls HIPIFY cannot translate: what each one means on a ROCm target."""

from __future__ import annotations

from envsnap.audit import hipify
from envsnap.audit.judges.base import Context, make_finding
from envsnap.audit.model import Finding, Signal, Target

SOFT_FAMILIES = frozenset({"cudnn"})
"""Families whose HIP side is a different API, not a rename: HIPIFY maps cuDNN to MIOpen only in part,
so an unmapped cuDNN call is a hand port to MIOpen (a documented swap, moderate), while an unmapped
runtime, driver, cuBLAS or cuRAND call has nothing to port to (the build fails: higher)."""


def judge_inventory(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """The per-file inventory is counted into the report's ``hipify`` section, not a finding."""
    return None


def judge_unsupported(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """A CUDA API with no HIP equivalent in HIPIFY's table: a blocker for ROCm only.

    On XPU, MPS and CPU the whole CUDA file is a rewrite already (the file's ``cuda-source`` finding);
    on CUDA nothing changes.
    """
    if target.kind != "rocm":
        return None
    facts = signal.facts()
    key = facts.get("family", "")
    family = hipify.families().get(key)
    if family is None:
        return None
    count = facts.get("count", "1")
    soft = key in SOFT_FAMILIES
    meaning = (
        f"{signal.subject} ({family.title}) has no {family.target} equivalent in HIPIFY's table: hipify "
        f"leaves the call as is, so the ROCm build fails until it is "
        + ("ported by hand to MIOpen's own API" if soft else "rewritten or put under a CUDA-only branch")
        + f" ({count} call{'s' if count != '1' else ''} in this file)."
    )
    replacement = (
        f"the {family.target} way of doing it (HIPIFY's table lists what does map), or keep the call "
        "under `#ifndef USE_ROCM` with a HIP path"
    )
    return make_finding(
        signal,
        "hipify-unsupported",
        meaning,
        "medium",
        "moderate" if soft else "higher",
        replacement,
        family.source,
    )
