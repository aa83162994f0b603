"""onnxruntime-gpu next to CUDA libraries of another major (docs/compat-rules.md B6.3, B1.2).

onnxruntime-gpu is built for one CUDA major (its ``cuda`` extra names the matching runtime wheels,
e.g. ``nvidia-cuda-runtime-cu12~=12.0`` or ``nvidia-cuda-runtime~=13.0``). "ONNX Runtime built with
CUDA 12.x is compatible with any CUDA 12.x version" — and with nothing else: without that major's
libraries the CUDA execution provider fails to load and every session silently runs on the CPU.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from envsnap.rules import facts
from envsnap.rules.base import ev, finding, major_minor, rule, version
from envsnap.rules.toolkit import system_cuda
from envsnap.snapshot.model import Evidence, Finding, Package, Snapshot

ID = "onnxruntime-cuda-major-mismatch"
SOURCE = "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements"

_RUNTIME = re.compile(r"^nvidia-cuda-runtime(?:-cu(\d+))?$")


def _runtime_major(name: str, version_text: str | None) -> int | None:
    match = _RUNTIME.match(canonicalize_name(name))
    if match is None:
        return None
    if match.group(1):
        return int(match.group(1))
    parsed = version(version_text)
    return parsed.release[0] if parsed is not None else None


def ort_cuda_major(package: Package) -> tuple[int, str] | None:
    """The CUDA major an onnxruntime-gpu wheel is built for, from its ``cuda`` extra's runtime pin."""
    for line in package.requires or ():
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        spec = next(iter(requirement.specifier), None)
        major = _runtime_major(requirement.name, spec.version if spec is not None else None)
        if major is not None:
            return major, line
    return None


def available_majors(snapshot: Snapshot) -> tuple[set[int], list[Evidence]]:
    """CUDA runtime majors this environment can load: runtime wheels, torch's CUDA, the system toolkit."""
    majors: set[int] = set()
    evidence: list[Evidence] = []
    for package in snapshot.packages or ():
        major = _runtime_major(package.name, package.version)
        if major is not None:
            majors.add(major)
            evidence.append(ev(f"packages[{package.name}].version", package.version))
    torch = facts.torch(snapshot)
    built = major_minor(torch.cuda) if torch is not None else None
    if built is not None:
        majors.add(built[0])
        evidence.append(ev("frameworks.torch.cuda", torch.cuda if torch else None))
    toolkit = system_cuda(snapshot)
    have = major_minor(toolkit.version or toolkit.nvcc_version) if toolkit is not None else None
    if have is not None:
        majors.add(have[0])
        evidence.append(ev("toolkits.cuda.version", toolkit.version if toolkit else None))
    return majors, evidence


@rule(ID)
def ort_cuda(snapshot: Snapshot) -> Iterator[Finding]:
    """onnxruntime-gpu's CUDA major has no matching runtime libraries here."""
    ort = facts.package(snapshot, "onnxruntime-gpu")
    built = ort_cuda_major(ort) if ort is not None else None
    if ort is None or built is None:
        return
    major, line = built
    majors, evidence = available_majors(snapshot)
    if major in majors:
        return
    present = (
        f"only CUDA {', '.join(map(str, sorted(majors)))} libraries are installed"
        if majors
        else ("no CUDA runtime libraries are installed")
    )
    yield finding(
        ID,
        "warning",
        f"onnxruntime-gpu {ort.version} is built for CUDA {major} but {present}: its CUDA execution provider "
        "fails to load and sessions run on the CPU",
        f"Install its CUDA {major} libraries with "
        f"`pip install 'onnxruntime-gpu[cuda,cudnn]=={ort.version}'`, or "
        "install an onnxruntime-gpu built for the CUDA major you have.",
        SOURCE,
        [ev(f"packages[{ort.name}].requires", line), *evidence],
    )
