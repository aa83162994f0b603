"""ROCm and AMD GPUs: is the GPU supported by this ROCm, and is its identity being faked? (B3.1, B3.2)

AMD supports a short list of gfx targets per ROCm release; others may work, or fail with
``hipErrorNoBinaryForGpu``. ``HSA_OVERRIDE_GFX_VERSION`` makes every GPU in the process claim
another target — a common workaround for consumer cards that "only partially works", applies to
all GPUs at once, and breaks HSA init on TheRock-based ROCm. Both are worth seeing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envsnap.rules import facts, knowledge
from envsnap.rules.arch import gfx_of_override
from envsnap.rules.base import ev, finding, rule
from envsnap.snapshot.model import Finding, Snapshot

ID = "rocm-gfx-unsupported"


def rocm_version(snapshot: Snapshot) -> tuple[Version | None, str]:
    """The ROCm release (major.minor.patch) and where the snapshot says it."""
    amd = snapshot.accelerators.amd if snapshot.accelerators else None
    toolkits = snapshot.toolkits
    candidates = [
        (amd.rocm_version if amd is not None and amd.ok else None, "accelerators.amd.rocm_version"),
        (
            toolkits.rocm.version
            if toolkits is not None and toolkits.rocm is not None and toolkits.rocm.ok
            else None,
            "toolkits.rocm.version",
        ),
    ]
    torch = facts.torch(snapshot)
    if torch is not None and torch.hip:
        # A ROCm wheel bundles its ROCm: torch.version.hip ("6.3.42131-fa1d09cbd") is the one it runs.
        candidates.append((torch.hip, "frameworks.torch.hip"))
    for text, path in candidates:
        leading = _RELEASE.match(text or "")
        if leading is not None:
            return Version(leading.group(0)), path
    return None, ""


_RDNA = re.compile(r"^gfx1[0-2]\d[0-9a-f]$")
"""An RDNA target (gfx10xx RDNA1/2, gfx11xx RDNA3, gfx12xx RDNA4)."""
_RELEASE = re.compile(r"^\d+\.\d+(?:\.\d{1,2}(?!\d))?")
"""Major.minor[.patch] of a ROCm/HIP version; HIP's build number ("6.2.41134") is not a patch."""


@rule(ID)
def unsupported_gfx(snapshot: Snapshot) -> Iterator[Finding]:
    """A GPU whose gfx target the installed ROCm release does not support."""
    rocm, path = rocm_version(snapshot)
    if rocm is None:
        yield from _never_supported(snapshot)
        return
    row = next((r for r in knowledge.gfx_support() if SpecifierSet(r.rocm).contains(rocm)), None)
    if row is None:
        return
    for device in facts.amd_devices(snapshot):
        gfx, gfx_evidence = facts.gfx_target(device)
        if gfx is None or gfx_evidence is None or gfx in row.gfx:
            continue
        known = knowledge.gfx_names().get(gfx)
        arch = f" — {known.name}" if known else ""
        yield finding(
            ID,
            "warning",
            f"{device.name or 'AMD GPU'} ({gfx}{arch}) is not a supported target of ROCm {rocm}",
            f"Use a GPU and ROCm release pair from AMD's compatibility matrix (ROCm {rocm} supports "
            f"{', '.join(row.gfx)}); unsupported targets may fail with 'hipErrorNoBinaryForGpu'.",
            row.source,
            [gfx_evidence, ev(path, str(rocm))],
        )


def _never_supported(snapshot: Snapshot) -> Iterator[Finding]:
    """Without a ROCm release, still warn about a gfx target no listed release and no torch ROCm wheel has.

    A bare ``rocminfo`` or ``rocm-smi`` paste often names the GPU's target but not the ROCm release.
    Only RDNA targets (gfx10xx-gfx12xx) are judged: AMD's lists for them begin with ROCm 5 and have
    only grown, so one that every support row (ROCm 6.0+) and every torch ROCm wheel's arch list
    leave out — gfx1010, gfx1031, gfx1032 — fails the same way on any release. GCN/CDNA targets
    (gfx803, gfx900, gfx906) are left alone: older releases supported them.
    """
    supported = {gfx for row in knowledge.gfx_support() for gfx in row.gfx}
    shipped = {gfx for row in knowledge.rocm_arch_lists() for gfx in row.list.split(";")}
    sources = sorted({row.source for row in knowledge.gfx_support()})
    for device in facts.amd_devices(snapshot):
        gfx, gfx_evidence = facts.gfx_target(device)
        if gfx is None or gfx_evidence is None or not _RDNA.match(gfx) or gfx in supported | shipped:
            continue
        known = knowledge.gfx_names().get(gfx)
        arch = f" — {known.name}" if known else ""
        yield finding(
            ID,
            "warning",
            f"{device.name or 'AMD GPU'} ({gfx}{arch}) is not a supported target of any ROCm release "
            "(6.0 onwards) nor in any official torch ROCm wheel",
            f"Use a GPU from AMD's compatibility matrix ({', '.join(sorted(supported))}); an unsupported "
            "target fails with 'hipErrorNoBinaryForGpu' unless HSA_OVERRIDE_GFX_VERSION maps it to a "
            "supported one of its family (partial, unofficial).",
            sources[0],
            [gfx_evidence],
        )


@rule(ID)
def hsa_override(snapshot: Snapshot) -> Iterator[Finding]:
    """HSA_OVERRIDE_GFX_VERSION is set: say what it overrides, and whether it fits the GPUs."""
    value = facts.variables(snapshot).get("HSA_OVERRIDE_GFX_VERSION")
    if value is None:
        return
    evidence = [ev("environment.variables.HSA_OVERRIDE_GFX_VERSION", value)]
    target = gfx_of_override(value)
    if target is None:
        yield finding(
            ID,
            "warning",
            f"HSA_OVERRIDE_GFX_VERSION={value!r} is not MAJOR.MINOR.STEPPING: the ROCm runtime may refuse it",
            "Unset it, or set it like `10.3.0` (gfx1030) / `11.0.0` (gfx1100).",
            knowledge.hsa_override_source(),
            evidence,
        )
        return
    natives = []
    for device in facts.amd_devices(snapshot):
        gfx, gfx_evidence = facts.gfx_target(device)
        if gfx is not None and gfx_evidence is not None:
            natives.append(gfx)
            evidence.append(gfx_evidence)
    shown = ", ".join(sorted(set(natives))) or "the GPUs"
    family = {gfx[:-1] for gfx in natives}  # gfx + major + minor; the last digit is the stepping
    other_family = bool(natives) and target[:-1] not in family
    note = "; it names a different GPU family, so kernels may fail" if other_family else ""
    torch = facts.torch(snapshot)
    if torch is not None and torch.arch_list and natives and all(n in torch.arch_list for n in natives):
        note += "; torch already has code for the native target, so it is not needed"
    yield finding(
        ID,
        "warning",
        f"HSA_OVERRIDE_GFX_VERSION={value} makes every GPU report {target} instead of {shown}{note}",
        "The override applies to all GPUs in the process and only partially works; prefer a ROCm/torch build "
        "that supports the GPU natively, and unset it on TheRock-based ROCm (7.14+), "
        "where it breaks HSA init.",
        knowledge.hsa_override_source(),
        evidence,
    )
