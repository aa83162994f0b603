"""Read-only views of a snapshot that several rules need, in the shape rules want them.

Each accessor answers one question ("which NVIDIA GPUs did the driver report?", "which version of
distribution X is installed?") and treats skipped or failed sections as "nothing known", so a rule
never has to repeat those checks or guess from a section that did not probe successfully.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.utils import canonicalize_name
from packaging.version import Version

from envsnap.rules import knowledge
from envsnap.rules.base import version
from envsnap.snapshot.model import (
    AmdDevice,
    Evidence,
    NvidiaDevice,
    NvidiaInfo,
    Package,
    ReportMessage,
    Snapshot,
    TorchInfo,
)

_LOCAL_CUDA = re.compile(r"^cu(\d+)(\d)$")


def torch(snapshot: Snapshot) -> TorchInfo | None:
    """The torch section when the framework probe (or an importer) read it successfully."""
    info = snapshot.frameworks.torch if snapshot.frameworks else None
    return info if info is not None and info.ok else None


def torch_version(snapshot: Snapshot) -> str | None:
    """torch's version: as the framework reported it, else the installed distribution's."""
    info = torch(snapshot)
    if info is not None and info.version:
        return info.version
    dist = package(snapshot, "torch") if info is not None else None
    return dist.version if dist is not None else None


def torch_label(snapshot: Snapshot) -> str:
    """``"torch 2.4.1+cu124"`` for titles (just ``"torch"`` when the version is unknown)."""
    found = torch_version(snapshot)
    return f"torch {found}" if found else "torch"


def nvidia(snapshot: Snapshot) -> NvidiaInfo | None:
    """The NVIDIA section when NVML (or nvidia-smi) answered."""
    info = snapshot.accelerators.nvidia if snapshot.accelerators else None
    return info if info is not None and info.ok else None


def nvidia_devices(snapshot: Snapshot) -> tuple[NvidiaDevice, ...]:
    """NVIDIA GPUs the driver reported (empty when there is no working driver)."""
    info = nvidia(snapshot)
    return info.devices or () if info is not None else ()


def amd_devices(snapshot: Snapshot) -> tuple[AmdDevice, ...]:
    """AMD GPUs amdsmi or sysfs reported."""
    info = snapshot.accelerators.amd if snapshot.accelerators else None
    return info.devices or () if info is not None and info.ok else ()


def variables(snapshot: Snapshot) -> dict[str, str]:
    """Environment variables recorded in the snapshot (empty when the section is absent)."""
    env = snapshot.environment
    return dict(env.variables or {}) if env is not None and env.ok else {}


def packages(snapshot: Snapshot) -> dict[str, Package]:
    """Installed distributions by PEP 503 name (the first of duplicates; see duplicate rules)."""
    found: dict[str, Package] = {}
    for package in snapshot.packages or ():
        found.setdefault(canonicalize_name(package.name), package)
    return found


def package(snapshot: Snapshot, name: str) -> Package | None:
    """One installed distribution by (any spelling of) its name."""
    return packages(snapshot).get(canonicalize_name(name))


def wrong_vendor_companions(snapshot: Snapshot) -> tuple[Package, ...]:
    """torchvision & co. built for the other GPU vendor than the host's only one: a ``+rocm4.2``
    torchvision on an NVIDIA-only host, a ``+cu121`` one on an AMD-only host (their ops cannot load).
    Empty when the host shows GPUs of both vendors or of neither (nothing to judge the build by)."""
    nvidia, amd = bool(nvidia_devices(snapshot)), bool(amd_devices(snapshot))
    if nvidia == amd:
        return ()
    other = re.compile(r"rocm\d" if nvidia else r"cu\d")
    found = []
    for name in knowledge.companions().names:
        companion = package(snapshot, name)
        tag = local_tag(companion.version) if companion is not None else None
        if companion is not None and tag and other.match(tag):
            found.append(companion)
    return tuple(found)


def local_tag(text: str | None) -> str | None:
    """The local version label: ``"2.4.1+cu124"`` -> ``"cu124"``; None without one."""
    parsed = version(text)
    return parsed.local if parsed is not None else None


def cuda_of_tag(tag: str | None) -> str | None:
    """``"cu124"`` -> ``"12.4"``, ``"cu118"`` -> ``"11.8"``; None for ``cpu``, ``rocm6.2`` and the like."""
    match = _LOCAL_CUDA.match(tag or "")
    return f"{match.group(1)}.{match.group(2)}" if match else None


def tag_of_cuda(cuda: str) -> str | None:
    """``"12.4"`` -> ``"cu124"`` (the PyTorch index name of a CUDA variant)."""
    parsed = version(cuda)
    if parsed is None or len(parsed.release) < 2:
        return None
    return f"cu{parsed.release[0]}{parsed.release[1]}"


@dataclass(frozen=True)
class TorchBuild:
    """What the rules need to know about the installed torch build."""

    release: Version
    """The version without its local label, e.g. ``2.4.1``."""
    variant: str | None
    """``cu124``, ``rocm6.2``, ``cpu``, ``xpu``; from the local label, else from torch.version.cuda."""


def torch_build(snapshot: Snapshot) -> TorchBuild | None:
    """The torch release and wheel variant, when torch was probed."""
    info = torch(snapshot)
    parsed = version(torch_version(snapshot))
    if info is None or parsed is None:
        return None
    variant = parsed.local or (tag_of_cuda(info.cuda) if info.cuda else None)
    return TorchBuild(release=Version(parsed.base_version), variant=variant)


def is_windows(snapshot: Snapshot) -> bool:
    """Whether the snapshot is of a Windows host (driver tables differ there)."""
    host = snapshot.host
    if host is None:
        return False
    return (host.os_id or "").lower() == "windows" or (host.os_name or "").lower().startswith(
        ("windows", "microsoft")
    )


def compute_capability(device: NvidiaDevice) -> tuple[Version | None, bool]:
    """A GPU's compute capability, and whether it was inferred from the product name.

    Probes read it from NVML; imports (nvidia-smi XML, collect_env) only have the name, which
    NVIDIA's "CUDA GPU Compute Capability" table maps to a CC (rules/data/nvidia_gpus.yaml).
    """
    recorded = version(device.compute_capability)
    if recorded is not None:
        return recorded, False
    for row in knowledge.compute_capabilities():
        if device.name and row.regex.search(device.name):
            return Version(row.cc), True
    return None, False


def gfx_target(device: AmdDevice) -> tuple[str | None, Evidence | None]:
    """An AMD GPU's gfx target (feature suffixes stripped) and the evidence for it.

    Recorded by amdsmi/sysfs or printed by collect_env (``AMD Radeon RX 6800 (gfx1030)``); else
    inferred from the marketing name through rules/data/rocm.yaml ``gfx_targets`` (the evidence
    names the row), as reports of older torch print just the name.
    """
    path = f"accelerators.amd.devices[{device.index}]"
    if device.gfx_target:
        return strip_gfx(device.gfx_target), Evidence(path=f"{path}.gfx_target", value=device.gfx_target)
    if not device.name:
        return None, None
    row = next((r for r in knowledge.gfx_targets() if r.regex.search(device.name)), None)
    if row is None:
        return None, None
    how = (
        f"{device.name} ({row.gfx} inferred from the name, matched /{row.pattern}/ in rules/data/rocm.yaml "
        f"({row.source}))"
    )
    return row.gfx, Evidence(path=f"{path}.name", value=how)


def capability_row(device: NvidiaDevice) -> knowledge.NamedCapability | None:
    """The row of rules/data/nvidia_gpus.yaml a device's name matched (first match wins)."""
    if not device.name:
        return None
    return next((row for row in knowledge.compute_capabilities() if row.regex.search(device.name)), None)


def imported(snapshot: Snapshot) -> bool:
    """Whether the snapshot was imported from a report: what it lacks is unknown, not absent."""
    return snapshot.meta.origin is not None and snapshot.meta.origin.kind == "import"


def stated_no_cuda_build(torch: TorchInfo | None, said: ReportMessage | None) -> bool:
    """Whether collect_env's "CUDA used to build PyTorch: None" (or "Could not collect") states a CPU-only
    torch: only beside an imported torch's version, with no ROCm or XPU build and CUDA not available (a
    ROCm or XPU build prints the same line, ``2.7.1+xpu`` among them; an unimportable torch prints N/A)."""
    if said is None or torch is None or not torch.version or torch.cuda or torch.hip or torch.xpu:
        return False
    if (local_tag(torch.version) or "").startswith(("xpu", "rocm", "cu")):
        return False
    available = torch.available
    return available is None or not (available.cuda or available.xpu)


def reported(snapshot: Snapshot, *kinds: str) -> ReportMessage | None:
    """The first message of one of ``kinds`` printed around an imported report (messages.py)."""
    origin = snapshot.meta.origin
    for message in (origin.messages or ()) if origin is not None else ():
        if message.kind in kinds:
            return message
    return None


def nvidia_ccs(snapshot: Snapshot) -> list[Version]:
    """The compute capabilities of the NVIDIA GPUs (recorded or inferred), unknown ones left out."""
    found = (compute_capability(device)[0] for device in nvidia_devices(snapshot))
    return [cc for cc in found if cc is not None]


def cc_text(value: Version) -> str:
    """``Version("12.0")`` -> ``"12.0"``, ``Version("9")`` -> ``"9.0"``."""
    release = (*value.release, 0)
    return f"{release[0]}.{release[1]}"


def strip_gfx(target: str) -> str:
    """``"gfx90a:sramecc+:xnack-"`` -> ``"gfx90a"`` (feature suffixes don't change the ISA)."""
    return target.split(":", 1)[0].strip().lower()
