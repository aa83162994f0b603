"""Naming the target precisely: ``rocm:gfx942@6.4``, ``xpu:pvc``, ``mps``, ``cpu``, ``cuda:sm_120@12.8``.

A migration plan starts with the exact target, so a vague one (``amd``, ``nvidia``, ``gpu``) is
refused with the precise forms and, where the word names a product we know, the form it maps
to. A target snapshot (``envsnap save`` run on the target machine) names it with its real
devices, driver and framework build instead.
"""

from __future__ import annotations

import functools
import re

import msgspec

from envsnap.audit import knowledge
from envsnap.audit.model import Target, TargetKind
from envsnap.errors import BadInput
from envsnap.rules import facts
from envsnap.rules import knowledge as rules_knowledge
from envsnap.snapshot.model import Snapshot

FORMS = "rocm[:gfxNNN][@ROCM_VERSION], xpu[:DEVICE], mps, cpu, cuda:sm_XY[@CUDA_VERSION]"
EXAMPLES = "rocm:gfx942@6.4, rocm, xpu:pvc, mps, cpu, cuda:sm_120@12.8"

_FORM = re.compile(
    r"^(?P<kind>rocm|xpu|mps|cpu|cuda)(?::(?P<arch>[a-z0-9_-]+))?(?:@(?P<version>\d+(?:\.\d+){0,2}))?$"
)
_GFX = re.compile(r"^gfx[0-9]{2,4}[0-9a-f]?$")
_SM = re.compile(r"^sm_\d{2,3}[a-z]?$")

_HINTS = {
    "amd": "rocm[:gfxNNN]",
    "radeon": "rocm[:gfxNNN]",
    "instinct": "rocm[:gfxNNN]",
    "hip": "rocm[:gfxNNN]",
    "nvidia": "cuda:sm_XY",
    "cuda": "cuda:sm_XY (name the GPU architecture, e.g. cuda:sm_120 for Blackwell GeForce)",
    "blackwell": "cuda:sm_100 (B200) or cuda:sm_120 (RTX 50xx)",
    "hopper": "cuda:sm_90",
    "intel": "xpu[:DEVICE]",
    "arc": "xpu:dg2 or xpu:bmg",
    "apple": "mps",
    "metal": "mps",
    "mac": "mps",
    "gpu": "the vendor's form",
}


def parse_target(text: str) -> Target:
    """A ``--target`` string as a Target.

    Raises:
        BadInput: a vague or malformed target, with the precise forms (exit 2).
    """
    spec = text.strip().lower()
    match = _FORM.match(spec)
    if match is None:
        raise BadInput(_refusal(text))
    kind = match.group("kind")
    arch, version = match.group("arch"), match.group("version")
    if kind in ("mps", "cpu") and (arch or version):
        raise BadInput(f"--target {text}: {kind} takes no architecture or version; name it as `{kind}`")
    if kind == "cuda":
        if not arch or not _SM.match(arch):
            raise BadInput(_refusal(text))
        if arch.rstrip("af") not in known_sms():
            # A verdict for a GPU that does not exist would be invented (#22 item 10).
            raise BadInput(
                f"--target {text}: unknown NVIDIA architecture `{arch}`; known: {', '.join(known_sms())}"
            )
        return Target(kind="cuda", archs=(arch,), version=version, label=spec)
    if kind == "rocm":
        if arch and not _GFX.match(arch):
            raise BadInput(f"--target {text}: `{arch}` is not a gfx target (e.g. gfx942, gfx90a, gfx1100)")
        if arch and arch not in known_gfx():
            raise BadInput(
                f"--target {text}: unknown AMD GPU target `{arch}`; known: {', '.join(known_gfx())}"
            )
        return Target(kind="rocm", archs=(arch,) if arch else (), version=version, label=spec)
    if kind == "xpu":
        if version:
            raise BadInput(f"--target {text}: xpu takes a device, not a version (xpu[:DEVICE])")
        if arch and arch not in knowledge.xpu_devices():
            raise BadInput(
                f"--target {text}: unknown XPU device `{arch}`; known: {', '.join(knowledge.xpu_devices())}"
            )
        return Target(kind="xpu", archs=(arch,) if arch else (), label=spec)
    plain: TargetKind = "mps" if kind == "mps" else "cpu"
    return Target(kind=plain, label=spec)


@functools.cache
def known_sms() -> tuple[str, ...]:
    """NVIDIA architectures with a GPU in the compute-capability table (rules/data/nvidia_gpus.yaml)."""
    ccs = {row.cc for row in rules_knowledge.compute_capabilities()}
    ordered = sorted(ccs, key=lambda cc: tuple(int(part) for part in cc.split(".")))
    return tuple(f"sm_{cc.replace('.', '')}" for cc in ordered)


@functools.cache
def known_gfx() -> tuple[str, ...]:
    """AMD gfx targets in the gfx name table (rules/data/rocm.yaml)."""
    return tuple(sorted(rules_knowledge.gfx_names(), key=lambda gfx: (len(gfx), gfx)))


def _refusal(text: str) -> str:
    """The one-line refusal of a vague target, with a hint where the word is known."""
    word = text.strip().lower()
    hint = _HINTS.get(word) or _product_hint(word)
    shown = " ".join(word.split())[:40] or "(empty)"
    suggestion = f" For `{shown}` use {hint}." if hint else ""
    return f"--target {shown}: name the target precisely: {FORMS} (e.g. {EXAMPLES}).{suggestion}"


def _product_hint(word: str) -> str | None:
    """``mi300x`` -> ``rocm:gfx942`` from the gfx name table (rules/data/rocm.yaml)."""
    if len(word) < 3 or not word.isalnum():
        return None
    for row in rules_knowledge.gfx_names().values():
        names = re.sub(r"[^a-z0-9]+", " ", row.name.lower()).split()
        if word in names:
            return f"rocm:{row.gfx}"
    return None


def target_from_snapshot(snapshot: Snapshot, name: str) -> Target:
    """The target a snapshot saved on the target machine describes: its devices, driver and torch.

    Raises:
        BadInput: never for a valid snapshot; a snapshot with no accelerator is the ``cpu`` target.
    """
    torch = facts.torch_version(snapshot)
    amd = facts.amd_devices(snapshot)
    if amd:
        gfx = tuple(sorted({facts.strip_gfx(d.gfx_target) for d in amd if d.gfx_target}))
        info = snapshot.accelerators.amd if snapshot.accelerators else None
        rocm = (info.rocm_version if info else None) or _toolkit_rocm(snapshot) or _torch_hip(snapshot)
        devices = tuple(d.name or f"AMD GPU {d.index}" for d in amd)
        return _described("rocm", gfx, rocm, name, torch, devices)
    nvidia = facts.nvidia_devices(snapshot)
    if nvidia:
        ccs = [facts.compute_capability(d)[0] for d in nvidia]
        sms = tuple(sorted({f"sm_{facts.cc_text(cc).replace('.', '')}" for cc in ccs if cc is not None}))
        driver = facts.nvidia(snapshot)
        devices = tuple(d.name or f"NVIDIA GPU {d.index}" for d in nvidia)
        described = _described(
            "cuda", sms, driver.cuda_driver_version if driver else None, name, torch, devices
        )
        # The driver decides which CUDA builds run there: none newer is suggested (#22 item 10).
        return msgspec.structs.replace(described, driver=driver.driver_version if driver else None)
    accel = snapshot.accelerators
    if accel and accel.intel and accel.intel.devices:
        devices = tuple(d.name or f"Intel GPU {d.index}" for d in accel.intel.devices)
        return _described("xpu", (), None, name, torch, devices)
    if accel and accel.mps and accel.mps.available:
        return _described("mps", (), None, name, torch, (accel.mps.chip or "Apple silicon",))
    return _described("cpu", (), None, name, torch, ())


def _described(
    kind: TargetKind,
    archs: tuple[str, ...],
    version: str | None,
    name: str,
    torch: str | None,
    devices: tuple[str, ...],
) -> Target:
    spec = kind + (f":{','.join(archs)}" if archs else "") + (f"@{version}" if version else "")
    return Target(
        kind=kind,
        archs=archs,
        version=version,
        label=f"{spec} (from {name})",
        snapshot=name,
        torch=torch,
        devices=devices,
    )


def _toolkit_rocm(snapshot: Snapshot) -> str | None:
    rocm = snapshot.toolkits.rocm if snapshot.toolkits else None
    return rocm.version if rocm and rocm.ok else None


def _torch_hip(snapshot: Snapshot) -> str | None:
    torch = facts.torch(snapshot)
    if torch is None or not torch.hip:
        return None
    return ".".join(torch.hip.split(".")[:2])
