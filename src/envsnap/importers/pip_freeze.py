"""Import ``pip freeze`` (or a pinned requirements file) as the package layer of a snapshot.

Each line is parsed with ``packaging.requirements.Requirement``: ``name==version`` pins,
``name @ url`` direct references (VCS, file, archive) and ``-e`` editable VCS lines. Option lines
(``--index-url``, ``-f``...) and comments carry no package and are skipped. Anything else is refused
with its line number: a half-pasted line is better refused than silently imported wrong.
"""

from __future__ import annotations

import re
from typing import Literal

from packaging.requirements import InvalidRequirement, Requirement

from envsnap.errors import BadInput
from envsnap.importers.base import ImportedSections
from envsnap.snapshot.model import Package, PackageSource

_EDITABLE_VCS = re.compile(
    r"^(?:-e|--editable)\s+(?P<url>(?P<vcs>git|hg|svn|bzr)\+\S+?)(?:#egg=(?P<name>[\w.-]+))?$"
)
_VCS_COMMIT = re.compile(r"@(?P<commit>[0-9a-f]{7,40})(?:#|$)")


def parse(text: str, name: str = "<pip freeze>") -> ImportedSections:
    """Turn ``pip freeze`` text into the packages section.

    Raises:
        BadInput: a line that is not a requirement, or no packages at all.
    """
    packages: dict[str, Package] = {}
    for number, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        editable = _EDITABLE_VCS.match(line)
        if editable:
            if not editable.group("name"):
                raise BadInput(f"{name}:{number}: editable line without '#egg=<name>': {line[:80]!r}")
            commit = _VCS_COMMIT.search(editable.group("url"))
            packages[editable.group("name").lower()] = Package(
                name=editable.group("name"),
                version="",
                source=PackageSource(
                    kind="editable",
                    url=editable.group("url"),
                    vcs=editable.group("vcs"),
                    commit_id=commit.group("commit") if commit else None,
                ),
            )
            continue
        if line.startswith("-"):
            continue  # an option line: --index-url, -f, -r, --hash=... carry no package
        try:
            requirement = Requirement(line)
        except InvalidRequirement as err:
            reason = str(err).splitlines()[0]  # packaging adds a caret diagram on further lines
            raise BadInput(f"{name}:{number}: not a requirement: {line[:80]!r} ({reason[:120]!r})") from err
        package = _package(requirement, name, number)
        packages[requirement.name.lower()] = package
    if not packages:
        raise BadInput(f"{name}: no packages found (expected lines like 'torch==2.4.1')")
    return ImportedSections(packages=tuple(packages.values()))


def _package(requirement: Requirement, name: str, number: int) -> Package:
    if requirement.url:
        url = requirement.url
        vcs = url.split("+", 1)[0] if re.match(r"^(git|hg|svn|bzr)\+", url) else None
        commit = _VCS_COMMIT.search(url) if vcs else None
        kind: Literal["vcs", "file", "url"] = "vcs" if vcs else ("file" if url.startswith("file:") else "url")
        return Package(
            name=requirement.name,
            version="",
            source=PackageSource(
                kind=kind, url=url, vcs=vcs, commit_id=commit.group("commit") if commit else None
            ),
        )
    pins = [spec for spec in requirement.specifier if spec.operator in ("==", "===")]
    if len(pins) != 1 or "*" in pins[0].version:
        raise BadInput(
            f"{name}:{number}: {str(requirement)[:80]!r} is not pinned to one version "
            "(pip freeze writes name==version)"
        )
    return Package(name=requirement.name, version=pins[0].version)
