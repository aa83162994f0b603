"""Does the framework build contain code for these GPUs? (docs/compat-rules.md B2.2–B2.4, B3.1)

A wheel carries machine code (cubins) for a list of compute capabilities, and maybe PTX for the
newest. A GPU outside that list fails at the first kernel launch with "no kernel image is available
for execution on the device" (ROCm: "invalid device function"). The arch list comes from the
snapshot; when CUDA was unavailable at probe time it is empty, and the published wheel's list
(rules/data/torch_wheels.yaml) stands in for it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envsnap.rules import compat, facts, knowledge
from envsnap.rules.base import ev, finding, rule, version
from envsnap.snapshot.model import Evidence, Finding, NvidiaDevice, Snapshot, TorchInfo

ID = "arch-not-in-build"
CUDA_SOURCE = "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py"
ROCM_SOURCE = "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html"


@rule(ID)
def cuda_arch(snapshot: Snapshot) -> Iterator[Finding]:
    """An NVIDIA GPU whose compute capability the CUDA build neither compiled nor can JIT."""
    torch = facts.torch(snapshot)
    build = facts.torch_build(snapshot)
    if torch is None or build is None or not torch.cuda:
        return
    arch_list, arch_path, source = _cuda_arch_list(snapshot, torch, build)
    if not arch_list:
        return
    for device in facts.nvidia_devices(snapshot):
        device_cc, inferred = facts.compute_capability(device)
        if device_cc is None:
            continue
        reach = compat.coverage(arch_list, device_cc, torch_cuda=torch.cuda)
        if reach == "sass":
            continue
        sm = f"sm_{facts.cc_text(device_cc).replace('.', '')}"
        name = device.name or f"GPU {device.index}"
        label = facts.torch_label(snapshot)
        severity: Literal["error", "warning"] = "warning" if reach == "ptx" else "error"
        if reach == "ptx":
            title = (
                f"{name} ({sm}) has no native kernels in {label}: only PTX JIT reaches it "
                "(slow first launch; libraries without PTX fail)"
            )
        else:
            title = f"{label} has no kernels for {name} ({sm}): 'no kernel image is available'"
        yield finding(
            ID,
            severity,
            title,
            _cuda_fix(snapshot, build, device_cc),
            source,
            [_cc_evidence(device, device_cc, inferred), ev(arch_path, list(arch_list)), *_printed(snapshot)],
        )


def _printed(snapshot: Snapshot) -> list[Evidence]:
    """What torch printed about it around a pasted report, when it did."""
    message = facts.reported(
        snapshot, "arch-not-compatible", "gpu-too-old", "no-kernel-image", "hip-invalid-device-function"
    )
    return [ev(f"meta.origin.messages[{message.kind}]", message.text)] if message else []


def _cc_evidence(device: NvidiaDevice, device_cc: Version, inferred: bool) -> Evidence:
    """The compute capability as recorded, or the name it was inferred from and the table row used."""
    if inferred:
        row = facts.capability_row(device)
        how = f", matched /{row.pattern}/ in rules/data/nvidia_gpus.yaml ({row.source})" if row else ""
        return ev(
            f"accelerators.nvidia.devices[{device.index}].name",
            f"{device.name} (CC {facts.cc_text(device_cc)} inferred from the name{how})",
        )
    return ev(f"accelerators.nvidia.devices[{device.index}].compute_capability", device.compute_capability)


def _cuda_arch_list(
    snapshot: Snapshot, torch: TorchInfo, build: facts.TorchBuild
) -> tuple[tuple[str, ...], str, str]:
    if torch.arch_list:
        return tuple(torch.arch_list), "frameworks.torch.arch_list", CUDA_SOURCE
    machine = snapshot.host.arch if snapshot.host and snapshot.host.arch else "x86_64"
    published = compat.wheel_arch_list(build.release, build.variant or "", machine)
    if published is None:
        return (), "", ""
    return published[0], f"published arch list of torch {build.release}+{build.variant}", published[1]


def _cuda_fix(snapshot: Snapshot, build: facts.TorchBuild, device_cc: Version) -> str:
    info = facts.nvidia(snapshot)
    driver = version(info.driver_version) if info else None
    machine = snapshot.host.arch if snapshot.host and snapshot.host.arch else "x86_64"
    windows = facts.is_windows(snapshot)
    variant = compat.suggest_cuda_variant(
        build.release, driver=driver, devices=[device_cc], machine=machine, windows=windows
    )
    if variant is not None and variant != build.variant:
        return f"Install a build that includes this GPU: `{compat.install_torch(build.release, variant)}`."
    newer = compat.suggest_newer_release(
        build.release, driver=driver, devices=[device_cc], machine=machine, windows=windows
    )
    if newer is not None:
        release, newer_variant = newer
        return (
            f"No build of torch {build.release} covers this GPU with your driver; torch {release} does: "
            f"`pip install 'torch=={release}.*' --index-url {compat.PYTORCH_INDEX}/{newer_variant}`."
        )
    return (
        f"No published build of torch {build.release} or newer covers this GPU with your driver: upgrade the "
        f"driver (see {compat.PYTORCH_GET_STARTED})."
    )


@rule(ID)
def cudnn_floor(snapshot: Snapshot) -> Iterator[Finding]:
    """cuDNN 9.11 and newer refuse GPUs below compute capability 7.5."""
    torch = facts.torch(snapshot)
    if torch is None or not torch.cuda:
        return
    cudnn, path = cudnn_version(snapshot, torch)
    floor = knowledge.cudnn_floor()
    if cudnn is None or cudnn < Version(floor.from_cudnn):
        return
    build = facts.torch_build(snapshot)
    release = f"=={build.release}" if build is not None else ""
    command = f"pip install torch{release} --index-url {compat.PYTORCH_INDEX}/cu126"
    for device in facts.nvidia_devices(snapshot):
        device_cc, inferred = facts.compute_capability(device)
        if device_cc is None or device_cc >= Version(floor.min_cc):
            continue
        yield finding(
            ID,
            "error",
            f"cuDNN {cudnn} does not support {device.name or 'this GPU'} (CC {facts.cc_text(device_cc)} < "
            f"{floor.min_cc}): cuDNN ops fail",
            f"Install a torch build with an older cuDNN; the cu126 wheels stay on cuDNN 9.10: `{command}`.",
            floor.source,
            [
                ev(path, str(torch.cudnn) if path.startswith("frameworks") else str(cudnn)),
                _cc_evidence(device, device_cc, inferred),
            ],
        )


def cudnn_version(snapshot: Snapshot, torch: TorchInfo) -> tuple[Version | None, str]:
    """cuDNN as torch reports it (``91002`` or ``"9.10.2"``), else the installed cuDNN wheel."""
    text = (torch.cudnn or "").strip()
    if text.isdigit():
        number = int(text)
        # cuDNN 9 encodes major*10000 + minor*100 + patch; cuDNN 8 and older major*1000 + minor*100 + patch.
        major, rest = (
            (number // 10000, number % 10000) if number >= 90000 else (number // 1000, number % 1000)
        )
        return Version(f"{major}.{rest // 100}.{rest % 100}"), "frameworks.torch.cudnn"
    if version(text) is not None:
        return version(text), "frameworks.torch.cudnn"
    for package in snapshot.packages or ():
        if package.name.lower().replace("_", "-").startswith("nvidia-cudnn-cu"):
            return version(package.version), f"packages[{package.name}].version"
    return None, ""


@rule(ID)
def rocm_arch(snapshot: Snapshot) -> Iterator[Finding]:
    """An AMD GPU whose gfx target the ROCm build was not compiled for."""
    torch = facts.torch(snapshot)
    if torch is None or not torch.hip:
        return
    arch_list, arch_path, source = _rocm_arch_list(torch)
    if not arch_list:
        return
    override = facts.variables(snapshot).get("HSA_OVERRIDE_GFX_VERSION")
    overridden = gfx_of_override(override) if override else None
    for device in facts.amd_devices(snapshot):
        gfx, gfx_evidence = facts.gfx_target(device)
        if gfx is None or gfx_evidence is None:
            continue
        if gfx in arch_list or (overridden is not None and overridden in arch_list):
            continue
        yield finding(
            ID,
            "error",
            f"{facts.torch_label(snapshot)} has no code objects for {device.name or 'this GPU'} ({gfx}): "
            "'HIP error: invalid device function'",
            f"Use a ROCm build that lists {gfx} (see {compat.PYTORCH_GET_STARTED}); for a close relative "
            "of a "
            "listed target, HSA_OVERRIDE_GFX_VERSION can make the runtime treat the GPU as that target.",
            source,
            [gfx_evidence, ev(arch_path, arch_list), *_printed(snapshot)],
        )


def _rocm_arch_list(torch: TorchInfo) -> tuple[list[str], str, str]:
    if torch.arch_list:
        return [facts.strip_gfx(a) for a in torch.arch_list], "frameworks.torch.arch_list", ROCM_SOURCE
    leading = re.match(r"^\d+\.\d+", torch.hip or "")  # "6.3.42131-fa1d09cbd" is no PEP 440 version
    if leading is None:
        return [], "", ""
    rocm = Version(leading.group(0))
    for row in knowledge.rocm_arch_lists():
        if SpecifierSet(row.rocm).contains(rocm):
            return row.list.split(";"), f"published gfx list of ROCm {rocm} wheels", row.source
    return [], "", ""


def gfx_of_override(value: str) -> str | None:
    """The gfx target an ``HSA_OVERRIDE_GFX_VERSION`` value names, or None when it is malformed.

    The format is MAJOR.MINOR.STEPPING and the target writes minor and stepping as hex digits:
    ``"10.3.0"`` -> ``"gfx1030"``, ``"9.0.10"`` -> ``"gfx90a"``.
    """
    parts = value.strip().split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    major, minor, stepping = (int(part) for part in parts)
    if minor > 15 or stepping > 15:
        return None
    return f"gfx{major}{minor:x}{stepping:x}"
