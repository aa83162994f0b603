"""A requirement that caps torch (``torch>=1.7,<1.13``): the newest torch it allows decides the builds.

A project pinned below the first torch with the target's wheels cannot install a torch that runs there: XPU
wheels start at 2.5, and the ROCm wheels of old releases carry no code objects for newer GPUs (torch 1.12's
ROCm 5.1.1 wheels predate gfx942). Read at text level from requirements files, pyproject.toml (PEP 508 strings
and Poetry's ``torch = "..."`` tables) and setup.py / setup.cfg strings, since a Poetry-generated setup.py
passes ``install_requires`` through a variable the syntax-tree visitor does not follow.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet

from envsnap.audit.model import Signal
from envsnap.audit.scanners.build import ends_headers, left_out, shown_code

_PEP508 = re.compile(r"""(?:^|["'\s])torch\s*\(?\s*((?:[<>=!~]=?=?\s*[0-9][\w.*+!]*\s*,?\s*)+)""")
"""``torch>=1.10,<1.13.1``, and ``torch (<1.13.1,>=1.10.0)`` as older setuptools wrote METADATA (deepod 0.4.1,
#22 blind round 101)."""
_POETRY = re.compile(r"""^\s*torch\s*=\s*(?:\{[^}]*?version\s*=\s*)?["']([^"']+)["']""")
_COMPANION = re.compile(
    r"""(?:^|["'\s])(torchvision|torchaudio)\s*\(?\s*((?:[<>=!~]=?=?\s*[0-9][\w.*+!]*\s*,?\s*)+)"""
)
"""``torchvision<0.20,>=0.17.0`` (torchaug 0.6.1, #22 blind round 194): each torchvision and torchaudio
release is built against one torch release, so a cap on them caps torch (judges.packages reads the pairs)."""
_CAPS = ("<", "<=", "==", "===", "~=")
_TABLE = re.compile(r"^\[\[?([\w.\-\"']+)")
_WHEEL_CI = re.compile(r"^tool\.cibuildwheel\b")
"""cibuildwheel's tables set up the wheel's test run: exacta 0.0.1a5's ``before-test`` installs
``torch==2.4.1`` from the CPU index there (#22 stop 32), which caps nothing a user installs."""
FILES = ("setup.py", "setup.cfg", "pyproject.toml")


_EXTRA = re.compile(r"\bextra\s*==")
_PYTHON_MARKER = re.compile(r";.*\bpython_(?:full_)?version\b")
METADATA = ("metadata", "pkg-info")
"""A wheel's METADATA and an sdist's PKG-INFO: ``Requires-Dist: torch==2.1.0`` is what pip installs."""


def is_pin_file(relative: str) -> bool:
    """Where a project states what it installs with."""
    name = relative.rsplit("/", 1)[-1].lower()
    return (
        name in FILES
        or name in METADATA
        or (name.startswith("requirements") and name.endswith((".txt", ".in")))
    )


def torch_pins(relative: str, text: str) -> Iterator[Signal]:
    """One ``torch-pin`` signal per line whose torch requirement has an upper bound."""
    if "torch" not in text:
        return
    metadata = relative.rsplit("/", 1)[-1].lower() in METADATA
    toml = relative.endswith(".toml")
    wheel_ci = False
    for number, line in enumerate(text.splitlines(), 1):
        if metadata and ends_headers(line):
            return  # the headers end; the long description (a README's install commands) follows
        if toml and (table := _TABLE.match(line)) is not None:
            wheel_ci = _WHEEL_CI.match(table.group(1)) is not None
        if wheel_ci:
            continue
        if "torch" not in line or line.lstrip().startswith("#"):
            continue
        if metadata and (not line.startswith("Requires-Dist:") or _EXTRA.search(line)):
            continue  # only the default install's requirements: an extra's marker names an opt-in
        if (metadata and _PYTHON_MARKER.search(line)) or "sys.version_info" in line:
            # `torch (>=2.2.2,<2.5.0) ; python_version < "3.9"` beside `torch>=2.2.2` for newer Pythons
            # (rl-games 1.6.5, #22 blind round 113): one of per-interpreter alternatives, not a cap for all.
            # So is setup.py's `'torchvision<=0.13.0' if sys.version_info <= (3, 7, 2) else 'torchvision'`
            # (clip-server 0.8.3, #22 blind round 230).
            continue
        companion = _COMPANION.search(line)
        if companion is not None and (pin := _capped(companion.group(2))) is not None:
            yield Signal(
                kind="torch-pin",
                layer="source",
                file=relative,
                line=number,
                code=shown_code(line.strip()),
                subject=f"{companion.group(1)}{pin}",
                detail=(f"spec={pin}", f"companion={companion.group(1)}"),
            )
        match = _PEP508.search(line) or _POETRY.search(line)
        if match is None:
            continue
        spec = match.group(1).strip()
        if spec.startswith("^"):  # Poetry's caret: ^1.12 allows < 2.0
            continue
        specifier = _capped(spec)
        if specifier is None:
            continue
        yield Signal(
            kind="torch-pin",
            layer="source",
            file=relative,
            line=number,
            code=shown_code(line.strip()),  # redacted before the per-file cache stores it
            subject=str(specifier),
            detail=(f"spec={specifier}", *(_platforms_left_out(line) if metadata else ())),
        )


def _platforms_left_out(line: str) -> tuple[str, ...]:
    """``not-on=linux`` where a ``Requires-Dist`` marker leaves the pin out there.

    deep-river 0.3.4 requires ``torch==2.2.2; sys_platform == "darwin" and platform_machine == "x86_64"``
    (Intel Macs, whose last torch wheels are 2.2) beside ``torch<2.6,>=2.5`` everywhere else (#22 blind round
    282): the 2.2.2 pin is no cap where ROCm or XPU run. The same reading as a requirement's marker
    (scanners.build.left_out).
    """
    if ";" not in line:
        return ()
    try:
        return left_out(Requirement(line.split(":", 1)[1].strip()))
    except InvalidRequirement:
        return ()


def _capped(spec: str) -> SpecifierSet | None:
    """The specifier, where it has an upper bound."""
    try:
        specifier = SpecifierSet(spec.strip().rstrip(","))
    except InvalidSpecifier:
        return None
    return specifier if any(s.operator in _CAPS for s in specifier) else None
