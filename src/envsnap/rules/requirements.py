"""Evaluate Requires-Dist lines the way pip would, but for the snapshot's machine, not ours.

A snapshot may come from another host, so PEP 508 markers are evaluated against a marker
environment built from the snapshot (``host.arch``, ``host.os_id``, ``python.version``), Linux by
default. Only base requirements count: ``extra == "..."`` requirements apply only when someone
asked for the extra, which an installed environment does not record (``pip check`` ignores them
too).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from envsnap.rules.base import version
from envsnap.snapshot.model import Package, Snapshot

_SYSTEMS = {"windows": ("Windows", "win32", "nt"), "macos": ("Darwin", "darwin", "posix")}
_LINUX = ("Linux", "linux", "posix")


def marker_environment(snapshot: Snapshot) -> dict[str, str]:
    """PEP 508 marker variables for the snapshot's host and interpreter."""
    host = snapshot.host
    system, platform, os_name = _SYSTEMS.get((host.os_id or "").lower() if host else "", _LINUX)
    machine = (host.arch if host is not None and host.arch else None) or "x86_64"
    py = snapshot.python
    full = (py.version if py is not None and py.version else None) or "3.11.0"
    parsed = version(full)
    short = ".".join(str(part) for part in parsed.release[:2]) if parsed is not None else "3.11"
    implementation = (py.implementation if py is not None and py.implementation else None) or "CPython"
    return {
        "implementation_name": implementation.lower(),
        "implementation_version": full,
        "os_name": os_name,
        "platform_machine": machine,
        "platform_python_implementation": implementation,
        "platform_release": (host.kernel if host is not None and host.kernel else None) or "",
        "platform_system": system,
        "platform_version": "",
        "python_full_version": full,
        "python_version": short,
        "sys_platform": platform,
        "extra": "",
    }


@functools.lru_cache(maxsize=8192)
def parse_requirement(line: str) -> Requirement | None:
    """A Requires-Dist line as a Requirement (None when malformed); cached: rules re-read the same lines."""
    try:
        return Requirement(line)
    except InvalidRequirement:
        return None


@dataclass(frozen=True)
class Dependency:
    """One applicable base requirement of an installed distribution."""

    owner: Package
    requirement: Requirement
    text: str
    """The Requires-Dist line as recorded."""


def dependencies(package: Package, environment: dict[str, str]) -> Iterator[Dependency]:
    """The base requirements of ``package`` whose markers hold in ``environment``.

    Unparsable lines and markers that cannot be evaluated are skipped: a rule should not report
    what it cannot read.
    """
    for line in package.requires or ():
        requirement = parse_requirement(line)
        if requirement is None:
            continue
        if requirement.marker is not None:
            try:
                if not requirement.marker.evaluate(environment):
                    continue
            except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
                continue
        yield Dependency(owner=package, requirement=requirement, text=line)


def satisfied(requirement: Requirement, installed: Package) -> bool:
    """Whether the installed version meets the requirement's specifier (pre-releases count)."""
    if not requirement.specifier:
        return True
    parsed = version(installed.version)
    if parsed is None:
        return True  # an unparsable version can't be judged; pip would not either
    return requirement.specifier.contains(parsed, prereleases=True)


def normalized(name: str) -> str:
    """PEP 503 name."""
    return canonicalize_name(name)
