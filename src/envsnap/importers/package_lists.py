"""Import ``pip list`` and ``conda list`` tables as the package layer of a snapshot.

``pip list`` prints a ``Package  Version`` header over a dashed rule, then ``name  version
[location]`` rows; ``conda list`` a ``# packages in environment at PATH:`` comment, then ``name
version build channel`` rows (channel ``pypi`` marks a pip-installed one). Rows that do not fit
(a wrapped or hand-edited line) are skipped: a package list is not refused for one bad row.
"""

from __future__ import annotations

import re

from envsnap.importers.base import ImportedSections
from envsnap.snapshot.model import Frameworks, Package, TorchInfo

PIP_LIST_HEADER = re.compile(
    r"^Package\s+Version(?:\s+(?:Editable project location|Location|Installer))*\s*$"
)
PIP_LIST_RULE = re.compile(r"^-{3,}(?:\s+-{3,})+\s*$")
CONDA_HEADER = re.compile(r"^# packages in environment at (?P<prefix>.+?):?\s*$")
_ROW = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s+(?P<version>[0-9][^\s]*|[a-f0-9]{7,40})(?:\s+(?P<rest>.*))?$"
)


def parse_pip_list(lines: list[str]) -> ImportedSections | None:
    """Rows under the ``Package Version`` header and its dashed rule, until a line that is not a row."""
    packages: dict[str, Package] = {}
    started = False
    for line in lines:
        stripped = line.strip()
        if not started:
            started = bool(PIP_LIST_RULE.match(stripped))
            continue
        row = _ROW.match(stripped)
        if row is None:
            if packages:
                break
            continue
        packages.setdefault(
            row.group("name").lower(), Package(name=row.group("name"), version=row.group("version"))
        )
    return ImportedSections(packages=tuple(packages.values())) if packages else None


_CONDA_CUDA = re.compile(r"cuda(?P<major>\d+)\.(?P<minor>\d+)")


def torch_of_conda_build(version: str, build: str) -> TorchInfo | None:
    """The torch build a ``conda list`` row states: ``py3.10_cuda12.1_cudnn8.9.2_0`` or ``py3.10_cpu_0``."""
    cuda = _CONDA_CUDA.search(build)
    if cuda:
        return TorchInfo(status="ok", version=version, cuda=f"{cuda.group('major')}.{cuda.group('minor')}")
    if "cpu" in build.split("_"):
        return TorchInfo(status="ok", version=version)
    return None


def torch_of_wheel(version: str) -> TorchInfo | None:
    """The torch build a wheel's local version states (``+cpu``, ``+cu121``, ``+rocm6.2``), else None."""
    local = version.partition("+")[2]
    cuda = re.fullmatch(r"cu(?P<digits>\d{2,3})", local)
    if cuda:
        digits = cuda.group("digits")
        return TorchInfo(status="ok", version=version, cuda=f"{digits[:-1]}.{digits[-1]}")
    # TheRock's nightlies tag a pre-release ROCm: "+rocm7.10.0a20251120"; AMD's own wheels
    # (repo.radeon.com) add the source commit: "+rocm6.4.1.git1ded221d"
    rocm = re.fullmatch(
        r"rocm(?P<rocm>\d+\.\d+(?:\.\d+)?)(?:(?:a|b|rc|dev)\d{0,10})?(?:\.git[0-9a-f]{7,40})?", local
    )
    if rocm:
        return TorchInfo(status="ok", version=version, hip=rocm.group("rocm"))
    if local == "cpu":
        return TorchInfo(status="ok", version=version)
    return None


_APP_LOG_ROCM = re.compile(r"\bROCm version: ?\((?P<major>\d{1,2}), ?(?P<minor>\d{1,2})\)", re.IGNORECASE)
"""ComfyUI's start-up line, printed only when ``torch.version.hip`` is set (``is_amd()``), as the tuple of
its first two numbers: ``ROCm version: (6, 4)`` (``(6, -1)`` when it could not parse them, not read)."""


def hip_of_app_log(text: str) -> str | None:
    """The ROCm a torch was built with, as an app's start-up log states it (ComfyUI), else None."""
    match = _APP_LOG_ROCM.search(text) if "rocm" in text.lower() else None
    return f"{match.group('major')}.{match.group('minor')}" if match else None


def parse_conda_list(lines: list[str]) -> ImportedSections | None:
    """``conda list`` rows; the installer is ``pip`` for channel ``pypi``, else ``conda``."""
    packages: dict[str, Package] = {}
    torch: TorchInfo | None = None
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        row = _ROW.match(stripped)
        if row is None:
            if packages:
                break
            continue
        rest = (row.group("rest") or "").split()
        if row.group("name") == "pytorch" and rest and torch is None:
            torch = torch_of_conda_build(row.group("version"), rest[0])
        installer = "pip" if rest and rest[-1] == "pypi" else "conda"
        packages.setdefault(
            row.group("name").lower(),
            Package(name=row.group("name"), version=row.group("version"), installer=installer),
        )
    if not packages:
        return None
    frameworks = Frameworks(torch=torch) if torch is not None else None
    return ImportedSections(packages=tuple(packages.values()), frameworks=frameworks)


CONDA_PLAN = re.compile(
    r"^[ \t]*The following (?:packages will be downloaded|NEW packages will be INSTALLED|packages will be "
    r"(?:UPDATED|DOWNGRADED|SUPERSEDED by a higher-priority channel)):[ \t]*$",
    re.M,
)
"""A conda/mamba transaction plan (``conda install`` before it asks to proceed): what it will install."""
_PLAN_DOWNLOAD = re.compile(
    r"^(?P<spec>[A-Za-z0-9][\w.-]{0,80}-[0-9][\w.!+]{0,40})\s*\|\s*(?P<build>[\w.+]{1,60})"
    r"\s+[\d.]+\s*[KMG]?B\s+(?P<channel>[\w./-]{1,80})$"
)
"""A row of the download table: ``pytorch-1.12.1  |  py3.8_cpu_0  133.8 MB  pytorch``."""
_PLAN_CHANGE = re.compile(
    r"^(?P<name>[A-Za-z0-9][\w.-]{0,80})\s+(?:\S+\s+-->\s+)?(?P<channel>[\w./-]{1,80})::"
    r"(?P<spec>[A-Za-z0-9][\w.-]{0,80}-[0-9][\w.!+]{0,40}-[\w.+]{1,60})(?:\s.*)?$"
)
"""A row of the NEW/UPDATED/DOWNGRADED lists: ``cudatoolkit  pkgs/main/win-64::cudatoolkit-10.2.89-h74a9793_1``
(an update shows the old spec, ``-->``, then the new one)."""  # noqa: E501 - the row as conda prints it


def parse_conda_plan(lines: list[str]) -> ImportedSections | None:
    """The packages a conda transaction plan installs, read as ``conda list`` rows (``name version build
    channel``): the plan is what the environment holds once it runs, which is why people paste it."""
    rows: list[str] = []
    for line in lines:
        stripped = line.strip()
        download = _PLAN_DOWNLOAD.match(stripped)
        if download:
            name, _, version = download.group("spec").rpartition("-")
            rows.append(f"{name} {version} {download.group('build')} {download.group('channel')}")
            continue
        change = _PLAN_CHANGE.match(stripped)
        if change:
            spec, _, build = change.group("spec").rpartition("-")
            name, _, version = spec.rpartition("-")
            if name == change.group("name"):
                channel = change.group("channel").split("/")[0]
                rows.append(f"{name} {version} {build} {channel}")
    return parse_conda_list(rows) if rows else None


_ALIGNED = re.compile(
    r"^(?P<name>(?=[A-Za-z0-9._-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._-]*) {2,}"
    r"(?P<version>[0-9][^\s]*)(?: {2,}\S.*)?$"
)
"""A ``name  version`` row; the name has a letter (``nvidia-smi dmon`` rows are numbers only)."""
MIN_HEADLESS_ROWS = 8
"""A ``pip list`` pasted without its header is taken only as a run of this many aligned rows."""


MIN_HEADLESS_CONDA_ROWS = 3
"""A ``conda list`` cut above its header needs fewer rows: each names a build and a channel as well."""
_CONDA_CHANNEL = re.compile(
    r"^(?:[\w.-]{1,60}(?:/[\w.-]{1,60}){1,4}|conda-forge|defaults|pytorch(?:-nightly)?|nvidia|anaconda|pypi)$"
)
"""The last column of a ``conda list`` row: a known channel or a path (``nvidia/label/cuda-12.4.1``)."""


def _conda_row(row: re.Match[str]) -> bool:
    rest = row.string[row.end("version") :].split()
    return len(rest) >= 2 and _CONDA_CHANNEL.match(rest[-1]) is not None


def parse_headless_list(lines: list[str]) -> ImportedSections | None:
    """A ``pip list`` whose header was cut off: the longest run of ``name  version`` rows, if long enough;
    a shorter run of ``name  version  build  channel`` rows is a ``conda list`` cut the same way."""
    best: list[re.Match[str]] = []
    run: list[re.Match[str]] = []
    for line in lines:
        row = _ALIGNED.match(line.strip())
        if row:
            run.append(row)
            continue
        if line.strip():
            best, run = max(best, run, key=len), []
    best = max(best, run, key=len)
    conda_rows = sum(1 for row in best if _conda_row(row))
    if len(best) < MIN_HEADLESS_ROWS:
        if len(best) >= MIN_HEADLESS_CONDA_ROWS and conda_rows == len(best):
            return parse_conda_list([row.string for row in best])
        return None
    if conda_rows * 2 > len(best):
        # ``conda list | grep torch``: conda's rows with their build and channel (pypi rows included);
        # read as a pip list the build string that says pytorch's CUDA would be lost
        return parse_conda_list([row.string for row in best])
    packages = {
        row.group("name").lower(): Package(name=row.group("name"), version=row.group("version"))
        for row in best
    }
    return ImportedSections(packages=tuple(packages.values()))
