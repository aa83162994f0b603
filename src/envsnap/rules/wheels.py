"""torch's own CUDA wheels and the libraries built against one torch release (B5.1, B6.2).

A pip-installed CUDA torch pins every ``nvidia-*`` (and, from 2.14, ``cuda-toolkit``) wheel it was
built with; a later ``pip install`` of something else can move one of them and break torch at the
first cuDNN/cuBLAS call. Companion libraries (torchvision, torchaudio, xformers, ...) ship compiled
ops for exactly one torch release and CUDA variant; mixing them gives "operator torchvision::nms
does not exist" or undefined symbols.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator

import msgspec
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from envsnap.rules import compat, facts, knowledge
from envsnap.rules.base import ev, finding, rule, version, worst
from envsnap.rules.requirements import Dependency, dependencies, marker_environment, satisfied
from envsnap.snapshot.model import Evidence, Finding, Package, Severity, Snapshot

PINS_SOURCE = "https://github.com/pytorch/pytorch/blob/main/.github/scripts/generate_binary_build_matrix.py"


def is_bundled_cuda_pin(dependency: Dependency) -> bool:
    """A requirement of torch on one of its CUDA wheels (reported by bundled-cuda-wheels-mismatch)."""
    name = canonicalize_name(dependency.requirement.name)
    return canonicalize_name(dependency.owner.name) == "torch" and name.startswith(("nvidia-", "cuda-"))


def is_companion_torch_pin(dependency: Dependency) -> bool:
    """A companion's requirement on torch (reported by companion-version-mismatch)."""
    owner = canonicalize_name(dependency.owner.name)
    names = {canonicalize_name(n) for n in knowledge.companions().names}
    return owner in names and canonicalize_name(dependency.requirement.name) == "torch"


def pinned_version(requirement: Requirement) -> Version | None:
    """The version a requirement names first (``==9.1.0.70``, ``~=13.0.48``, ``>=12.0``)."""
    for spec in requirement.specifier:
        parsed = version(spec.version.rstrip(".*"))
        if parsed is not None:
            return parsed
    return None


def requirement_text(requirement: Requirement) -> str:
    """The requirement without its marker, quoted for a shell: ``'nvidia-cudnn-cu12==9.1.0.70'``."""
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    return f"'{requirement.name}{extras}{requirement.specifier}'"


@rule("bundled-cuda-wheels-mismatch")
def bundled_wheels(snapshot: Snapshot) -> Iterator[Finding]:
    """Installed nvidia-*/cuda-* wheels don't satisfy the installed torch's own pins."""
    torch_dist = facts.package(snapshot, "torch")
    if torch_dist is None or not torch_dist.requires:
        return
    installed = facts.packages(snapshot)
    environment = marker_environment(snapshot)
    problems: list[tuple[Severity, str, Evidence, Requirement]] = []
    for dependency in dependencies(torch_dist, environment):
        if not is_bundled_cuda_pin(dependency):
            continue
        requirement = dependency.requirement
        have = installed.get(canonicalize_name(requirement.name))
        if have is None:
            path = f"packages[{requirement.name}]"
            problems.append(("error", f"{requirement.name} is missing", ev(path, None), requirement))
        elif not satisfied(requirement, have):
            severity = _severity(have, requirement)
            text = f"{have.name} {have.version} (torch pins {requirement.specifier})"
            problems.append((severity, text, ev(f"packages[{have.name}].version", have.version), requirement))
    if not problems:
        return
    severity = worst(p[0] for p in problems)
    more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
    pins = " ".join(requirement_text(p[3]) for p in problems)
    yield finding(
        "bundled-cuda-wheels-mismatch",
        severity,
        f"torch {torch_dist.version} was built against other CUDA wheels: {problems[0][1]}{more}",
        f"Reinstall the exact wheels torch pins: `pip install {pins}`.",
        PINS_SOURCE,
        [ev("packages[torch].version", torch_dist.version), *(p[2] for p in problems)],
    )


def _severity(have: Package, requirement: Requirement) -> Severity:
    """Another major or an older release breaks torch; a newer one of the same major mostly works."""
    installed, pinned = version(have.version), pinned_version(requirement)
    if installed is None or pinned is None:
        return "warning"
    if installed.release[0] != pinned.release[0] or installed < pinned:
        return "error"
    return "warning"


PYG_SOURCE = "https://github.com/pyg-team/pytorch_geometric#additional-libraries"
_TORCH_TAG = re.compile(r"^pt(?P<major>\d)(?P<minor>\d{1,2})(?P<variant>cu\d{2,3}|cpu)?$")
"""The local version PyG's extension wheels carry (data.pyg.org): ``+pt113cu117`` is built for torch
1.13 with CUDA 11.7, ``+pt20cpu`` for torch 2.0 on the CPU. Their compiled ops link against exactly
that torch release (another one fails with undefined symbols when they are imported)."""


def _torch_tagged(snapshot: Snapshot) -> Iterator[Finding]:
    """Extension wheels whose ``+ptXY`` tag names another torch release than the installed one (one
    finding for all of them: they come from one wheel index and are fixed by one reinstall)."""
    info = facts.torch(snapshot)
    dist = facts.package(snapshot, "torch") or facts.package(snapshot, "pytorch")
    installed = version(
        info.version if info is not None and info.version else (dist.version if dist else None)
    )
    if installed is None or len(installed.release) < 2:
        return
    wrong: list[tuple[Package, str]] = []
    for package in snapshot.packages or ():
        tag = _TORCH_TAG.match(facts.local_tag(package.version) or "")
        if tag is None or (int(tag.group("major")), int(tag.group("minor"))) == installed.release[:2]:
            continue
        cuda = facts.cuda_of_tag(tag.group("variant"))
        built = f"torch {tag.group('major')}.{tag.group('minor')}{f' (CUDA {cuda})' if cuda else ''}"
        wrong.append((package, built))
    if not wrong:
        return
    first, built = wrong[0]
    more = f" (and {len(wrong) - 1} more from the same index)" if len(wrong) > 1 else ""
    release = f"{installed.release[0]}.{installed.release[1]}"
    yield finding(
        "companion-version-mismatch",
        "error",
        f"{first.name} {first.version} is built for {built}, but torch {installed} is installed{more}: "
        "its compiled ops cannot load",
        f"Reinstall {', '.join(p.name for p, _ in wrong)} from the PyG wheel index of your torch: "
        f"`pip install {first.name} -f https://data.pyg.org/whl/torch-{release}.0+<cuXYZ|cpu>.html` "
        "(the variant torch reports in `torch.version.cuda`).",
        PYG_SOURCE,
        [
            *(ev(f"packages[{p.name}].version", p.version) for p, _ in wrong),
            ev("frameworks.torch.version", str(installed)),
        ],
    )


@rule("companion-version-mismatch")
def companions(snapshot: Snapshot) -> Iterator[Finding]:
    """torchvision & co. built for another torch release or another CUDA variant."""
    yield from _torch_tagged(snapshot)
    torch_dist = facts.package(snapshot, "torch")
    torch_version = version(torch_dist.version) if torch_dist is not None else None
    if torch_dist is None or torch_version is None:
        return
    environment = marker_environment(snapshot)
    table = knowledge.companions()
    # A companion built for the other GPU vendor than the host's is build-vendor-mismatch's (one finding).
    wrong_vendor = {c.name for c in facts.wrong_vendor_companions(snapshot)}
    for name in table.names:
        companion = facts.package(snapshot, name)
        if companion is None:
            continue
        pins = [d for d in dependencies(companion, environment) if is_companion_torch_pin(d)]
        problem = _torch_pin_problem(companion, torch_dist, pins) or _pairing_problem(
            companion, torch_version, pins
        )
        if problem is not None:
            title, evidence, source = problem
            yield finding(
                "companion-version-mismatch",
                "error",
                title,
                _companion_fix(companion, torch_version),
                source,
                [ev(f"packages[{companion.name}].version", companion.version), *evidence],
            )
        variant = None
        # A companion of another release is reinstalled from torch's own index (the fix names its
        # variant), so its CUDA tag is part of the same finding rather than a second one.
        if companion.name not in wrong_vendor and problem is None:
            variant = _variant_problem(companion, _tagged_torch(snapshot, torch_dist))
        if variant is not None:
            severity, title = variant
            yield finding(
                "companion-version-mismatch",
                severity,
                title,
                _companion_fix(companion, torch_version),
                table.source,
                [
                    ev(f"packages[{companion.name}].version", companion.version),
                    ev("packages[torch].version", torch_dist.version),
                ],
            )


def _torch_pin_problem(
    companion: Package, torch_dist: Package, pins: list[Dependency]
) -> tuple[str, list[Evidence], str] | None:
    for pin in pins:
        if not satisfied(pin.requirement, torch_dist):
            return (
                f"{companion.name} {companion.version} requires torch{pin.requirement.specifier}, "
                f"but torch {torch_dist.version} is installed",
                [
                    ev(f"packages[{companion.name}].requires", pin.text),
                    ev("packages[torch].version", torch_dist.version),
                ],
                knowledge.companions().source,
            )
    return None


def _pairing_problem(
    companion: Package, torch_version: Version, pins: list[Dependency]
) -> tuple[str, list[Evidence], str] | None:
    """Without recorded Requires-Dist, compare with the known release pairs."""
    if companion.requires is not None or pins:
        return None
    expected = _paired(companion.name, torch_version)
    have = version(companion.version)
    if expected is None or have is None or have.release[:2] == expected[0].release[:2]:
        return None
    if _nightly_neighbours(torch_version, have, expected[0]):
        return None
    return (
        f"{companion.name} {companion.version} belongs to another torch release than torch {torch_version} "
        f"(expected {companion.name} {expected[0]}.x)",
        [ev("packages[torch].version", str(torch_version))],
        expected[1],
    )


def _nightly_neighbours(torch_version: Version, have: Version, expected: Version) -> bool:
    """A pre-release torch (a nightly, a source build ``1.13.0a0+git...``) beside a pre-release
    companion one minor off: the release table pairs releases, and the nightly streams cross at each
    branch cut (torch main turns 1.13.0a0 while torchvision's nightlies still say 0.13.0.dev), so the
    table cannot tell such a pair wrong. Further apart, or with a released side, it still can."""
    return (
        torch_version.is_prerelease
        and have.is_prerelease
        and have.release[0] == expected.release[0]
        and abs(((*have.release, 0))[1] - ((*expected.release, 0))[1]) <= 1
    ) or _same_nightly(torch_version, have)


NIGHTLY_DAYS = 7
"""Nightlies dated this close are one nightly stream: each night's companions are built against that
night's torch, whatever their version numbers say (torchaudio's nightlies said 2.8.0.dev while torch's
said 2.10.0.dev: the release table cannot judge such a pair)."""


def _same_nightly(torch_version: Version, have: Version) -> bool:
    """Whether both are nightlies (``.devYYYYMMDD``) built within NIGHTLY_DAYS of each other."""
    dates = []
    for item in (torch_version, have):
        try:
            dates.append(datetime.datetime.strptime(str(item.dev), "%Y%m%d").date())
        except ValueError:
            return False
    return abs((dates[0] - dates[1]).days) <= NIGHTLY_DAYS


def _paired(name: str, torch_version: Version) -> tuple[Version, str] | None:
    key = f"{torch_version.release[0]}.{((*torch_version.release, 0))[1]}"
    row = next((r for r in knowledge.companions().pairs if r.torch == key), None)
    value = getattr(row, canonicalize_name(name), None) if row is not None else None
    return (Version(value), row.source) if row is not None and value else None


_BUILD_VARIANT = re.compile(r"^(?:cu\d+|rocm\d[\d.]*|cpu|xpu)$")


def _tagged_torch(snapshot: Snapshot, torch_dist: Package) -> Package:
    """torch's distribution with the CUDA variant the framework states, when its version carries no tag
    (conda and source builds print ``1.2.0`` while collect_env says ``CUDA used to build PyTorch: 10.0``)."""
    info = facts.torch(snapshot)
    if facts.local_tag(torch_dist.version) or info is None or not info.cuda:
        return torch_dist
    digits = "".join(info.cuda.split(".")[:2])
    return msgspec.structs.replace(torch_dist, version=f"{torch_dist.version}+cu{digits}")


def _variant_problem(companion: Package, torch_dist: Package) -> tuple[Severity, str] | None:
    """Different local variants: ``+cu121`` vs ``+cu124``, or a CPU companion next to a CUDA torch."""
    mine, theirs = facts.local_tag(companion.version), facts.local_tag(torch_dist.version)
    if not mine or not theirs or mine == theirs:
        return None
    if not (_BUILD_VARIANT.match(mine) and _BUILD_VARIANT.match(theirs)):
        return None  # a source build's git hash or ABI tag ("+a4736ea", "+cxx11.abi") names no variant
    mine_cuda, their_cuda = facts.cuda_of_tag(mine), facts.cuda_of_tag(theirs)
    if mine_cuda and their_cuda:
        severity: Severity = "error" if mine_cuda.split(".")[0] != their_cuda.split(".")[0] else "warning"
        what = f"CUDA {mine_cuda}, torch for CUDA {their_cuda}"
    elif (mine_cuda and theirs.startswith("rocm")) or (their_cuda and mine.startswith("rocm")):
        # the other GPU vendor's build: its ops link the HIP runtime where torch loads CUDA's (or the
        # reverse), so they cannot load at all, as with another CUDA major
        severity, what = "error", f"+{mine} (the other GPU vendor's runtime), torch is +{theirs}"
    else:
        severity, what = "warning", f"+{mine}, torch is +{theirs}"
    return (
        severity,
        f"{companion.name} {companion.version} is built for {what}: its compiled ops may not load",
    )


def _companion_fix(companion: Package, torch_version: Version) -> str:
    paired = _paired(companion.name, torch_version)
    variant = torch_version.local
    # a source build's local label ("+gitcbdb694") names no index; only a build variant does
    index = (
        f" --index-url {compat.PYTORCH_INDEX}/{variant}" if variant and _BUILD_VARIANT.match(variant) else ""
    )
    if paired is not None:
        return f"Reinstall the matching release: `pip install '{companion.name}=={paired[0]}.*'{index}`."
    return (
        f"Reinstall {companion.name} for torch {torch_version} from the same index as torch"
        f"{index and ' (' + index.strip() + ')'}, or rebuild it against the installed torch."
    )
