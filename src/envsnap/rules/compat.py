"""Compatibility arithmetic over the knowledge tables, shared by several rules.

"Which driver does CUDA 12.4 need?", "does a cubin for sm_80 run on an sm_86 GPU?", "which CUDA
variant of torch 2.4 would run on this driver and these GPUs?" — answered here once, from the
tables in ``rules/data``, with ``packaging`` doing every version comparison.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envsnap.rules import knowledge
from envsnap.rules.base import major_minor, version

PYTORCH_INDEX = "https://download.pytorch.org/whl"
PYTORCH_GET_STARTED = "https://pytorch.org/get-started/locally/"

Coverage = Literal["sass", "ptx"]


# ---------------------------------------------------------------------------- driver ↔ CUDA


@dataclass(frozen=True)
class DriverNeeds:
    """The drivers a CUDA X.y runtime needs: the family floor (starts at all) and Table 3 (everything)."""

    cuda: str
    floor: Version | None
    floor_source: str | None
    full: Version | None
    """Table 3 minimum of the release's GA; None when NVIDIA publishes none (e.g. 13.4+)."""
    full_source: str | None
    floor_text: str | None = None
    """The floor as NVIDIA writes it ("580.65.06"; Version would print 580.65.6)."""
    full_text: str | None = None


def driver_needs(cuda: str, *, windows: bool = False) -> DriverNeeds | None:
    """Driver minimums for a CUDA runtime version such as ``"12.4"`` (None if unparsable)."""
    mm = major_minor(cuda)
    if mm is None:
        return None
    column = "windows" if windows else "linux"
    floor = next((row for row in knowledge.family_floors() if row.family == mm[0]), None)
    rows = [
        row for row in knowledge.driver_minimums() if major_minor(row.cuda) == mm and getattr(row, column)
    ]
    full_row = min(rows, key=lambda row: version(getattr(row, column)) or Version("0"), default=None)
    return DriverNeeds(
        cuda=f"{mm[0]}.{mm[1]}",
        floor=version(getattr(floor, column)) if floor is not None else None,
        floor_source=floor.source if floor is not None else None,
        full=version(getattr(full_row, column)) if full_row is not None else None,
        full_source=full_row.source if full_row is not None else None,
        floor_text=getattr(floor, column) if floor is not None else None,
        full_text=getattr(full_row, column) if full_row is not None else None,
    )


def driver_runs(cuda: str, driver: Version, *, windows: bool = False, full: bool = True) -> bool | None:
    """Whether ``driver`` runs CUDA ``cuda`` (fully, or at least under minor-version compatibility)."""
    needs = driver_needs(cuda, windows=windows)
    if needs is None:
        return None
    limit = (needs.full or needs.floor) if full else needs.floor
    return None if limit is None else driver >= limit


# ---------------------------------------------------------------------------- compute capability


def sass_runs_on(code: str, device: Version, *, torch_cuda: str | None = None) -> bool:
    """Whether a cubin compiled for ``code`` (``"8.0"``) runs on a device of CC ``device``."""
    row = knowledge.sass_compat().get(code)
    device_text = f"{device.release[0]}.{((*device.release, 0))[1]}"
    if row is None:
        code_v = version(code)
        return code_v is not None and device.release[0] == code_v.release[0] and device >= code_v
    if device_text in row.also:
        return True
    unification = knowledge.jetson_unification()
    torch_cuda_v = version(torch_cuda)
    if (
        torch_cuda_v is not None
        and torch_cuda_v >= Version(unification.from_cuda)
        and code in unification.codes
        and device_text in unification.also_runs_on
    ):
        return True
    return device_text not in row.except_ and row.spec.contains(device, prereleases=True)


_ARCH = re.compile(r"^(sm|compute)_(\d+)(\d)([a-z]?)$")


def parse_arch(entry: str) -> tuple[str, str, bool] | None:
    """``"sm_86"`` -> ``("sm", "8.6", False)``; ``"sm_90a"`` -> ``("sm", "9.0", True)`` (arch-specific)."""
    match = _ARCH.match(entry.strip().lower())
    if match is None:
        return None
    return match.group(1), f"{match.group(2)}.{match.group(3)}", bool(match.group(4))


def coverage(arch_list: Iterable[str], device: Version, *, torch_cuda: str | None = None) -> Coverage | None:
    """How a build reaches a device: ``"sass"`` (native cubins), ``"ptx"`` (JIT only) or None."""
    ptx = False
    for entry in arch_list:
        parsed = parse_arch(entry)
        if parsed is None:
            continue
        kind, code, specific = parsed
        code_v = Version(code)
        if specific:
            if kind == "sm" and code_v == device:
                return "sass"
            continue
        if kind == "sm" and sass_runs_on(code, device, torch_cuda=torch_cuda):
            return "sass"
        if kind == "compute" and code_v <= device:
            ptx = True
    return "ptx" if ptx else None


def expand_arch_list(torch_cuda_arch_list: str) -> tuple[str, ...]:
    """``"8.0;9.0+PTX"`` (TORCH_CUDA_ARCH_LIST) -> ``("sm_80", "sm_90", "compute_90")``."""
    entries: list[str] = []
    for item in torch_cuda_arch_list.split(";"):
        item = item.strip()
        ptx = item.endswith("+PTX")
        code = item.removesuffix("+PTX").replace(".", "")
        if not code:
            continue
        entries.append(f"sm_{code}")
        if ptx:
            entries.append(f"compute_{code}")
    return tuple(entries)


def wheel_arch_list(release: Version, variant: str, machine: str) -> tuple[tuple[str, ...], str] | None:
    """The published wheel's arch list and its source, for a torch release and CUDA variant."""
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine.lower())
    for row in knowledge.arch_lists():
        if row.variant == variant and row.machine == machine and SpecifierSet(row.torch).contains(release):
            return expand_arch_list(row.list), row.source
    return None


# ---------------------------------------------------------------------------- fixes


def release_row(release: Version) -> knowledge.TorchRelease | None:
    """The variants published for a torch release (by major.minor)."""
    key = f"{release.release[0]}.{((*release.release, 0))[1]}"
    return next((row for row in knowledge.torch_releases() if row.torch == key), None)


def cuda_of_variant(variant: str) -> str | None:
    """``"cu124"`` -> ``"12.4"``."""
    match = re.match(r"^cu(\d+)(\d)$", variant)
    return f"{match.group(1)}.{match.group(2)}" if match else None


def suggest_cuda_variant(
    release: Version,
    *,
    driver: Version | None,
    devices: Sequence[Version] = (),
    machine: str = "x86_64",
    windows: bool = False,
    cuda_at_most: Version | None = None,
) -> str | None:
    """The newest CUDA variant of ``release`` this driver fully runs, with native code for every GPU
    (and, given ``cuda_at_most``, not newer than that CUDA: the toolkit a host without a known driver has)."""
    row = release_row(release)
    if row is None:
        return None
    for variant in sorted(row.cuda, key=lambda v: version(cuda_of_variant(v)) or Version("0"), reverse=True):
        cuda = cuda_of_variant(variant)
        if cuda is None:
            continue
        if cuda_at_most is not None and Version(cuda) > cuda_at_most:
            continue
        if driver is not None and driver_runs(cuda, driver, windows=windows) is False:
            continue
        arch = wheel_arch_list(release, variant, machine)
        # With GPUs to serve, only a variant known to carry native cubins for each of them will do:
        # PTX JIT is slow at first launch and libraries without PTX fail.
        if devices and (
            arch is None or any(coverage(arch[0], d, torch_cuda=cuda) != "sass" for d in devices)
        ):
            continue
        return variant
    return None


def suggest_newer_release(
    release: Version,
    *,
    driver: Version | None,
    devices: Sequence[Version] = (),
    machine: str = "x86_64",
    windows: bool = False,
) -> tuple[str, str] | None:
    """The oldest newer torch release (major.minor) with a CUDA variant for this driver and these GPUs."""
    rows = sorted(knowledge.torch_releases(), key=lambda row: Version(row.torch))
    for row in rows:
        candidate = Version(f"{row.torch}.0")
        if candidate <= Version(f"{release.major}.{release.minor}.0"):
            continue
        variant = suggest_cuda_variant(
            candidate, driver=driver, devices=devices, machine=machine, windows=windows
        )
        if variant is not None:
            return row.torch, variant
    return None


def install_torch(release: Version, variant: str) -> str:
    """The pip command that installs ``release`` from PyTorch's index for ``variant``."""
    return f"pip install torch=={release} --index-url {PYTORCH_INDEX}/{variant}"
