"""The environment layers of the audit: framework build, installed packages, compiled extensions.

Everything here reads the snapshot (the probes already did the work: package metadata, the
extension scan's DT_NEEDED libraries and fatbin SM archs, the torch build) and the wheel tables
(``rules/data/torch_wheels.yaml`` for CUDA/ROCm variants per release, ``audit/data/targets.yaml``
for XPU/MPS/CPU). The install command always uses ``--index-url``: with ``--extra-index-url``
pip may pick the CUDA wheel from PyPI.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from envsnap.audit import knowledge
from envsnap.audit.judges import NAMES, Context, package_finding
from envsnap.audit.model import Finding, Signal, Target
from envsnap.rules import compat, facts
from envsnap.rules import knowledge as rules_knowledge
from envsnap.snapshot.model import Snapshot

COMPANIONS = ("torchvision", "torchaudio")


def context(snapshot: Snapshot | None) -> Context:
    """Installed versions keyed by the package table's keys and PEP 503 names."""
    if snapshot is None:
        return Context()
    installed: dict[str, str] = {}
    for package in snapshot.packages or ():
        name = canonicalize_name(package.name)
        installed[name] = package.version
        row = knowledge.alternative_for_distribution(name)
        if row is not None:
            installed[row.key] = package.version
    return Context(installed=installed)


def environment_findings(snapshot: Snapshot, target: Target) -> Iterator[Finding]:
    """Framework, package and extension findings of the source environment for the target."""
    yield from framework(snapshot, target)
    yield from packages(snapshot, target)
    yield from extensions(snapshot, target)


# ---------------------------------------------------------------------------- framework


def framework(snapshot: Snapshot, target: Target) -> Iterator[Finding]:
    """Whether a torch build for the target exists for this release, and how to install it."""
    build = facts.torch_build(snapshot)
    if build is None:
        return
    label = facts.torch_version(snapshot) or str(build.release)
    extras = [name for name in COMPANIONS if facts.package(snapshot, name) is not None]
    location, code = "frameworks.torch", f"torch {label}"
    if target.kind == "rocm":
        yield from _rocm(build.release, target, extras, location, code)
    elif target.kind == "cuda":
        yield from _cuda(build.release, target, extras, location, code)
    else:
        yield _other(build.release, target, extras, location, code)
    if target.torch:
        yield from _target_torch(build.release, target, location, code)


def _command(release: Version, index: str | None, extras: list[str]) -> str:
    names = " ".join([f"torch=={release}", *extras])
    return f"`pip install {names}" + (f" --index-url {index}`" if index else "`")


def _finding(
    rule: str, location: str, code: str, meaning: str, effort: str, risk: str, replacement: str, source: str
) -> Finding:
    return Finding(
        rule=rule,
        layer="framework",
        location=location,
        code=code,
        meaning=meaning,
        effort=effort,  # type: ignore[arg-type]
        risk=risk,  # type: ignore[arg-type]
        replacement=replacement,
        source=source,
    )


def _rocm(release: Version, target: Target, extras: list[str], location: str, code: str) -> Iterator[Finding]:
    row = compat.release_row(release)
    source = knowledge.source("rocm")
    if row is None or row.rocm is None:
        yield _finding(
            "framework-build",
            location,
            code,
            f"No ROCm build of torch {release} is recorded.",
            "medium",
            "moderate",
            "upgrade torch to a release with ROCm wheels",
            source,
        )
        return
    rocm = row.rocm
    wanted = target.version
    if wanted and not _same_minor(wanted, rocm):
        others = [r.torch for r in rules_knowledge.torch_releases() if r.rocm and _same_minor(wanted, r.rocm)]
        hint = (
            f"torch {', '.join(others)} built for ROCm {wanted}"
            if others
            else f"no torch release lists ROCm {wanted}"
        )
        yield _finding(
            "framework-build",
            location,
            code,
            f"torch {release.major}.{release.minor} publishes ROCm {rocm} wheels, not ROCm {wanted} "
            f"({hint}).",
            "medium",
            "moderate",
            f"use ROCm {rocm} on the target with "
            + _command(release, knowledge.wheel("rocm")["index"].format(rocm=rocm), extras)
            + (f", or move to torch {others[-1]}" if others else ""),
            row.source,
        )
    else:
        yield _finding(
            "framework-build",
            location,
            code,
            f"torch {release.major}.{release.minor} publishes ROCm {rocm} wheels.",
            "low",
            "lower",
            _command(release, knowledge.wheel("rocm")["index"].format(rocm=rocm), extras),
            row.source,
        )
    yield from _gfx(Version(rocm if wanted is None else wanted), Version(rocm), target, location, code)


def _gfx(runtime: Version, wheel: Version, target: Target, location: str, code: str) -> Iterator[Finding]:
    for gfx in target.archs:
        listed = next(
            (r for r in rules_knowledge.rocm_arch_lists() if SpecifierSet(r.rocm).contains(wheel)), None
        )
        if listed is not None and gfx not in listed.list.split(";"):
            yield _finding(
                "gfx-not-in-wheel",
                location,
                code,
                f"The ROCm {wheel} wheels carry no code objects for {gfx}: 'HIP error: invalid "
                "device function'.",
                "high",
                "higher",
                "build torch from source with PYTORCH_ROCM_ARCH="
                + gfx
                + " (HSA_OVERRIDE_GFX_VERSION only for a close relative)",
                listed.source,
            )
        supported = next(
            (r for r in rules_knowledge.gfx_support() if SpecifierSet(r.rocm).contains(runtime)), None
        )
        if supported is not None and gfx not in supported.gfx:
            yield _finding(
                "gfx-not-supported",
                location,
                code,
                f"AMD does not list {gfx} as supported by ROCm {runtime}: it may work, untested by AMD.",
                "low",
                "moderate",
                "a listed GPU, or accept community support",
                supported.source,
            )


def _same_minor(a: str, b: str) -> bool:
    try:
        left, right = Version(a), Version(b)
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        return False
    return (left.major, left.minor) == (right.major, right.minor)


def _cuda(release: Version, target: Target, extras: list[str], location: str, code: str) -> Iterator[Finding]:
    row = compat.release_row(release)
    parsed = compat.parse_arch(target.archs[0]) if target.archs else None
    if row is None or parsed is None:
        return
    device = Version(parsed[1])
    ceiling = Version(target.version) if target.version else None
    driver = _driver(target)
    variants = sorted(row.cuda, key=lambda v: Version(compat.cuda_of_variant(v) or "0"), reverse=True)
    for variant in variants:
        cuda = compat.cuda_of_variant(variant)
        if cuda is None or (ceiling is not None and Version(cuda) > ceiling):
            continue
        if driver is not None and compat.driver_runs(cuda, driver) is False:
            continue
        arch = compat.wheel_arch_list(release, variant, "x86_64")
        if arch is not None and compat.coverage(arch[0], device, torch_cuda=cuda) == "sass":
            yield _finding(
                "framework-build",
                location,
                code,
                f"torch {release.major}.{release.minor}+{variant} has kernels for {target.archs[0]}.",
                "low",
                "lower",
                _command(release, knowledge.wheel("cuda")["index"].format(variant=variant), extras),
                arch[1],
            )
            return
    newer = compat.suggest_newer_release(release, driver=driver, devices=[device])
    older = _older_release(release, driver, device) if newer is None and driver is not None else None
    if newer:
        replacement = (
            f"upgrade: `pip install 'torch=={newer[0]}.*' --index-url {compat.PYTORCH_INDEX}/{newer[1]}`"
        )
    elif older:
        replacement = (
            f"driver {target.driver} runs none of torch {release.major}.{release.minor}'s CUDA builds: "
            "upgrade "
            f"the driver, or install an older torch: `pip install 'torch=={older[0]}.*' --index-url "
            f"{compat.PYTORCH_INDEX}/{older[1]}`"
        )
    else:
        replacement = "no published torch build covers it yet: build from source with TORCH_CUDA_ARCH_LIST"
    yield _finding(
        "framework-build",
        location,
        code,
        f"No torch {release.major}.{release.minor} build"
        + (f" for CUDA <= {target.version}" if target.version else "")
        + f" has kernels for {target.archs[0]}"
        + (f" and runs on driver {target.driver}" if driver is not None else "")
        + ": 'no kernel image is available for execution on the device'.",
        "medium",
        "higher" if newer is None and older is None else "moderate",
        replacement,
        knowledge.source("cuda"),
    )


def _older_release(release: Version, driver: Version, device: Version) -> tuple[str, str] | None:
    """The newest older torch release with a CUDA build this driver runs and this GPU has kernels in."""
    rows = sorted(rules_knowledge.torch_releases(), key=lambda row: Version(row.torch), reverse=True)
    for row in rows:
        candidate = Version(f"{row.torch}.0")
        if candidate >= Version(f"{release.major}.{release.minor}.0"):
            continue
        variant = compat.suggest_cuda_variant(candidate, driver=driver, devices=[device])
        if variant is not None:
            return row.torch, variant
    return None


def _driver(target: Target) -> Version | None:
    """The target's NVIDIA driver version (target snapshots), for the builds it can run."""
    try:
        return Version(target.driver) if target.driver else None
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        return None


def _other(release: Version, target: Target, extras: list[str], location: str, code: str) -> Finding:
    row = knowledge.wheel(target.kind)
    first = Version(str(row["first_torch"]))
    if release < first:
        return _finding(
            "framework-build",
            location,
            code,
            f"torch {release} predates {NAMES[target.kind]} wheels (from torch {first}): a "
            "framework upgrade comes first.",
            "medium",
            "moderate",
            f"upgrade to torch >= {first}, then " + _command(first, row["index"], extras),
            str(row["source"]),
        )
    where = "the macOS arm64 wheel on PyPI includes MPS; " if target.kind == "mps" else ""
    return _finding(
        "framework-build",
        location,
        code,
        f"{where}torch {release.major}.{release.minor} has {NAMES[target.kind]} builds.",
        "low",
        "lower",
        _command(release, row["index"], extras),
        str(row["source"]),
    )


def _target_torch(release: Version, target: Target, location: str, code: str) -> Iterator[Finding]:
    """With a target snapshot: the torch already installed there, against the source's."""
    try:
        there = Version(Version(target.torch or "").base_version)
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        return
    if (there.major, there.minor) != (release.major, release.minor):
        yield _finding(
            "framework-version-skew",
            f"target: torch {target.torch}",
            code,
            f"The target runs torch {target.torch}, the source {release}: results and APIs may differ.",
            "low",
            "moderate",
            f"install torch {release} on the target (command above), or test on {there}",
            knowledge.source("cpu"),
        )


# ---------------------------------------------------------------------------- packages, extensions


def packages(snapshot: Snapshot, target: Target) -> Iterator[Finding]:
    """Installed CUDA-only distributions, the apex trap, and the CUDA library wheels (one finding)."""
    versions, apex_source = knowledge.apex_trap()
    pattern, wheel_source = knowledge.cuda_library_wheels()
    wheels: list[str] = []
    ctx = context(snapshot)
    tool = _tool_requirements(snapshot)
    for package in snapshot.packages or ():
        name = canonicalize_name(package.name)
        if name in tool:
            continue  # envsnap's own dependency (nvidia-ml-py for NVML), not the project's
        if name == "apex" and package.version in versions:
            yield Finding(
                rule="pypi-apex",
                layer="packages",
                location=f"packages[{package.name}]",
                code=f"{package.name}=={package.version}",
                meaning="This `apex` is the unrelated PyPI package, not NVIDIA Apex: `import apex` "
                "gives the wrong module.",
                effort="low",
                risk="moderate",
                replacement="uninstall it; build NVIDIA/apex or ROCm/apex from source",
                source=apex_source,
            )
            continue
        if pattern.match(name):
            wheels.append(f"{package.name}=={package.version}")
            continue
        row = knowledge.alternative_for_distribution(name)
        if row is None:
            continue
        signal = Signal(
            kind="package",
            layer="packages",
            subject=f"packages[{package.name}]",
            code=f"{package.name}=={package.version}",
            detail=(f"package={row.key}",),
        )
        found = package_finding(signal, target, ctx, "cuda-only-package", package.version)
        if found is not None:
            yield found
    if wheels and target.kind != "cuda":
        shown = ", ".join(wheels[:4]) + (f" and {len(wheels) - 4} more" if len(wheels) > 4 else "")
        yield Finding(
            rule="cuda-library-wheels",
            layer="packages",
            location="packages[nvidia-*]",
            code=shown,
            meaning=f"{len(wheels)} NVIDIA CUDA library wheels: they come with the CUDA torch build "
            f"and do nothing on {NAMES[target.kind]}.",
            effort="low",
            risk="lower",
            replacement="uninstall them with the CUDA torch; the target's build brings its own",
            source=wheel_source,
        )


def _tool_requirements(snapshot: Snapshot) -> frozenset[str]:
    """What envsnap itself requires, when the audited environment is the one envsnap runs in."""
    if not any(canonicalize_name(p.name) == "envsnap" for p in snapshot.packages or ()):
        return frozenset()
    try:
        requires = importlib.metadata.requires("envsnap") or []
    except importlib.metadata.PackageNotFoundError:
        return frozenset()
    names = set()
    for line in requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.marker is None or "extra" not in str(requirement.marker):
            names.add(canonicalize_name(requirement.name))
    return frozenset(names)


def extensions(snapshot: Snapshot, target: Target) -> Iterator[Finding]:
    """Distributions with compiled CUDA code (the extension probe's fatbin archs) on the target."""
    section = snapshot.extensions
    if section is None or not section.ok:
        return
    for dist in section.distributions or ():
        if "cuda" not in dist.vendors or dist.name.lower() == "torch":
            continue
        name = canonicalize_name(dist.name)
        if knowledge.alternative_for_distribution(name) is not None or knowledge.cuda_library_wheels()[
            0
        ].match(name):
            continue  # the package finding already says what replaces it
        archs = ", ".join(dist.sm_archs or ()) or "no fatbin archs recorded"
        location = f"extensions[{dist.name}]"
        code = f"{dist.name} {dist.version or ''}".strip() + f" ({', '.join(dist.libraries[:3])}; {archs})"
        yield from _extension(dist.sm_archs or (), target, location, code)


def _extension(sm_archs: tuple[str, ...], target: Target, location: str, code: str) -> Iterator[Finding]:
    source = "https://github.com/ROCm/HIPIFY"
    if target.kind == "cuda":
        parsed = compat.parse_arch(target.archs[0]) if target.archs else None
        if parsed is None or not sm_archs:
            return
        reach = compat.coverage(sm_archs, Version(parsed[1]))
        if reach == "sass":
            return
        yield Finding(
            rule="extension-arch",
            layer="extensions",
            location=location,
            code=code,
            meaning=(
                f"Only PTX reaches {target.archs[0]}: JIT-compiled at first launch."
                if reach == "ptx"
                else f"No kernels for {target.archs[0]}: 'no kernel image is available'."
            ),
            effort="low",
            risk="lower" if reach == "ptx" else "moderate",
            replacement=f"a release built for {target.archs[0]}, or rebuild with "
            "TORCH_CUDA_ARCH_LIST including it",
            source="https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py",
        )
        return
    rocm = target.kind == "rocm"
    yield Finding(
        rule="compiled-cuda-extension",
        layer="extensions",
        location=location,
        code=code,
        meaning=(
            "Compiled against CUDA: needs a ROCm build (rebuild from source on ROCm, where hipify "
            "runs) or a ROCm wheel."
            if rocm
            else f"Compiled CUDA code with no {NAMES[target.kind]} build known."
        ),
        effort="medium" if rocm else "high",
        risk="moderate" if rocm else "higher",
        replacement="rebuild from source on the ROCm machine"
        if rocm
        else "a pure-torch path, or port the kernels",
        source=source,
    )
