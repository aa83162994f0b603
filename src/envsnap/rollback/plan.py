"""A rollback plan from a snapshot: what to install to get that environment back, validated first.

Pure: ``plan(snapshot, live=None) -> RollbackPlan``. The plan holds exact pins for every
distribution, the PyTorch indexes their local version tags need, the packages pip cannot restore
by itself (editable and local-file installs), and the system layers no package manager inside
Python can restore (NVIDIA driver, CUDA and ROCm toolkits, the amdgpu driver, the interpreter),
each with the version wanted and, when a live snapshot is given, the version installed now.
render/rollback.py writes it as requirements.txt, environment.yml or a shell script;
rollback/apply.py runs it with the target interpreter's pip.

A snapshot is untrusted input: it may come from another machine or another person, and what we
write ends up as arguments to pip or lines of a shell script. So before any plan exists, every
name must be a PEP 508 distribution name, every version a PEP 440 version without whitespace,
every URL a single token with an allowed scheme and never an option (``-e``, ``--index-url=``),
every VCS revision a plain ref, every system version a plain version token. A snapshot that
fails is refused whole with a one-line ``BadInput`` (exit 2): nothing is written, nothing runs.

URL policy: ``https``, ``git+https`` and ``git+ssh`` become pins. Other well-formed URLs
(``http``, ``file``, ``git+file``...) are not pinned: they point at the original machine's disk
or travel unencrypted, so they are listed as manual steps for a person to judge.

An empty version is "not reported", not hostile, when the package comes from a URL, a VCS or an
editable install (a ``pip freeze`` line ``name @ url`` or ``-e git+...`` carries no version): such
a package is restored by its URL, or listed as a manual step. Anywhere else it is refused.

A snapshot without a package list (an ``import nvidia-smi-xml``), or whose python probe did not
succeed, does not know its package layer: the plan says so (``packages_unknown``) and pins
nothing, and rollback/apply.py refuses it, because "restore exactly these packages" would then
mean "uninstall everything". The plan's fingerprint is recomputed, never copied from the file.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidName, canonicalize_name
from packaging.version import Version

from envsnap.errors import BadInput
from envsnap.snapshot.fingerprint import fingerprint
from envsnap.snapshot.model import Package, PythonEnv, Section, Snapshot
from envsnap.snapshot.redact import redact_text

PYTORCH_INDEX = "https://download.pytorch.org/whl/"
"""Where PyTorch publishes its CUDA, ROCm, CPU and XPU wheel variants."""

PINNED_SCHEMES = frozenset({"https", "git+https", "git+ssh"})
KNOWN_SCHEMES = PINNED_SCHEMES | frozenset(
    {"http", "file", "git+http", "git+file", "git+git", "hg+https", "hg+http", "hg+ssh", "hg+file",
     "svn+https", "svn+http", "svn+ssh", "svn+svn", "svn+file", "bzr+https", "bzr+http", "bzr+ssh",
     "bzr+sftp", "bzr+ftp", "bzr+lp", "bzr+file"}
)  # fmt: skip
"""Every scheme pip itself installs from; anything else (``git+ext::``, ``javascript:``) is refused."""
_REQUIREMENTS_SPECIAL = re.compile(r"[${}\\]")
"""What pip's requirements-file parser treats specially inside a line: ``${VAR}`` is expanded from
the environment of whoever runs ``pip install -r`` (so a URL could carry their secrets to its
host), and a backslash at the end of a line joins the next one (silently eating the next pin)."""
_VCS = ("git", "hg", "svn", "bzr")
_TORCH_VARIANT = re.compile(r"^(cu\d{2,3}|rocm\d+(?:\.\d+)*|cpu|xpu)$")
_UNSAFE = re.compile("[\\s\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Whitespace, C0, DEL, C1 and bidirectional controls: never part of a name, version or URL."""
_UNVERSIONED_SOURCES = frozenset({"vcs", "url", "file", "editable"})
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/+-]{0,199}$")
_SYSTEM_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+~:-]{0,63}$")

PinKind = Literal["index", "vcs", "url"]


@dataclass(frozen=True)
class Pin:
    """One distribution pip can install exactly."""

    name: str
    version: str
    requirement: str
    """``six==1.17.0`` or ``mylib @ git+https://host/org/mylib@<commit>``."""
    kind: PinKind
    installer: str | None = None


@dataclass(frozen=True)
class ManualPackage:
    """A distribution the plan cannot pin: an editable or local install, or an unpinnable URL."""

    name: str
    version: str
    """Empty when the snapshot does not say (an imported ``-e git+...`` line)."""
    why: str
    """E.g. "editable install from file:///home/~/src/mylib: reinstall it with pip install -e <path>"."""


@dataclass(frozen=True)
class SystemStep:
    """A layer below Python: its wanted version and, when known, the installed one."""

    what: str
    """E.g. "NVIDIA driver"."""
    wanted: str
    current: str | None = None
    """Installed now (live probe), "none" when absent there; None when not probed."""
    unprobed_hint: str | None = None
    """Why ``current`` is unknown although the machine was probed, e.g. "pass --python PATH"."""

    @property
    def satisfied(self) -> bool:
        """Whether the live machine already has the wanted version."""
        return self.current == self.wanted

    @property
    def text(self) -> str:
        """``install NVIDIA driver 535.104.05; currently 550.54.14``."""
        if self.current is None:
            hint = f"; currently unknown ({self.unprobed_hint})" if self.unprobed_hint else ""
            return f"install {self.what} {self.wanted}{hint}"
        if self.satisfied:
            return f"{self.what} {self.wanted}: already installed"
        return f"install {self.what} {self.wanted}; currently {self.current}"


@dataclass(frozen=True)
class RollbackPlan:
    """Everything needed to restore a snapshot's environment."""

    label: str
    fingerprint: str | None
    python_version: str | None
    env_kind: str | None
    env_name: str | None
    pins: tuple[Pin, ...]
    """Dependencies before their dependents (see ``install_order``)."""
    extra_index_urls: tuple[str, ...]
    manual: tuple[ManualPackage, ...]
    system: tuple[SystemStep, ...]
    packages_unknown: str | None = None
    """Why the snapshot does not know its package layer (then nothing is pinned), or None."""
    snapshot_path: str | None = None
    """The snapshot file as the user named it, for the commands a plan suggests (None: unknown)."""


# ---------------------------------------------------------------------------- validation


def _refuse(where: str, what: str, value: object) -> BadInput:
    return BadInput(f"{where}: refusing to restore: {what} {value!r}")


def check_name(name: str, where: str) -> str:
    """The PEP 503-normalized name; BadInput unless ``name`` is a PEP 508 distribution name."""
    if _UNSAFE.search(name):
        raise _refuse(where, "package name", name)
    try:
        return canonicalize_name(name, validate=True)
    except InvalidName:
        raise _refuse(where, "package name (not a PEP 508 name)", name) from None


def check_package_version(package: Package, where: str) -> str:
    """``check_version``, except that a URL, VCS or editable install may leave its version unknown."""
    if package.version == "" and package.source is not None and package.source.kind in _UNVERSIONED_SOURCES:
        return ""
    return check_version(package.version, where)


def packages_unknown(snapshot: Snapshot) -> str | None:
    """Why ``snapshot`` does not know its package layer, or None when it does.

    A missing ``packages`` section means the source never listed them (an ``import
    nvidia-smi-xml``); a python section that is not ok means the listing failed.
    """
    python = snapshot.python
    if python is not None and not python.ok:
        why = f": {python.reason}" if python.reason else ""
        return f"its python probe {python.status}{why}"
    if snapshot.packages is None:
        origin = snapshot.meta.origin
        if origin is not None and origin.kind == "import" and origin.format:
            return f"it has no packages section; it was imported from {origin.format}"
        return "it has no packages section"
    return None


def check_version(version: str, where: str) -> str:
    """``version`` unchanged; BadInput unless it is one PEP 440 version with nothing around it."""
    if _UNSAFE.search(version) or version.startswith("-"):
        raise _refuse(where, "version", version)
    try:
        Version(version)
    except ValueError:  # InvalidVersion, or a number past int()'s digit limit
        raise _refuse(where, "version (not PEP 440)", version) from None
    return version


def check_url(url: str, where: str) -> str:
    """``url`` unchanged; BadInput unless it is a single well-formed URL token (any scheme)."""
    if not url or _UNSAFE.search(url) or url.startswith("-"):
        raise _refuse(where, "URL", url)
    if _REQUIREMENTS_SPECIAL.search(url):
        raise _refuse(where, "URL (holds $, {, } or \\, which pip -r expands or joins)", url)
    if ";" in url:
        # pip reads ``name @ URL;python_version<'3'`` as a URL and an environment marker: the pin
        # would silently never install, while packaging's own parse took it all as the URL.
        raise _refuse(where, "URL (holds ';', which pip reads as the start of an environment marker)", url)
    parts = urlsplit(url)
    if not re.match(r"^[a-z][a-z0-9+.-]*$", parts.scheme or ""):
        raise _refuse(where, "URL (no scheme)", url)
    if parts.scheme not in KNOWN_SCHEMES:
        raise _refuse(where, f"URL (scheme {parts.scheme!r} is not one pip installs from)", url)
    if parts.netloc.startswith("-") or parts.netloc.rpartition("@")[2].startswith("-"):
        raise _refuse(where, "URL (a host or user starting with '-' is an option to git/ssh)", url)
    return url


def check_system_version(value: str, where: str) -> str:
    """A driver or toolkit version that will be written into comments and scripts."""
    if not _SYSTEM_VERSION.match(value):
        raise _refuse(where, "version", value)
    return value


# ---------------------------------------------------------------------------- plan


def plan(snapshot: Snapshot, *, label: str = "snapshot", live: Snapshot | None = None) -> RollbackPlan:
    """Validate a snapshot and turn it into a rollback plan.

    Args:
        snapshot: the environment to restore.
        label: how to name it in the output (file name or host).
        live: the machine as it is now, for the "currently" part of system steps.

    Raises:
        BadInput: the snapshot holds a name, version or URL that is unsafe to pass on.
    """
    pins: list[Pin] = []
    manual: list[ManualPackage] = []
    indexes: set[str] = set()
    unknown = packages_unknown(snapshot)
    packages = (snapshot.packages or ()) if unknown is None else ()
    for index, package in enumerate(packages):
        where = f"{label}: packages[{index}]"
        check_name(package.name, where)
        check_package_version(package, f"{where} ({package.name})")
        outcome = _pin_or_manual(package, f"{where} ({package.name})")
        if isinstance(outcome, Pin):
            pins.append(outcome)
            url = pytorch_index(outcome)
            if url is not None:
                indexes.add(url)
        else:
            manual.append(outcome)
    python = snapshot.python
    python_version = python.version if python is not None else None
    if python_version is not None:
        check_system_version(python_version, f"{label}: python.version")
    return RollbackPlan(
        label=label,
        fingerprint=fingerprint(snapshot),  # a stored one may have been edited: never echo it
        python_version=python_version,
        env_kind=python.env_kind if python is not None else None,
        env_name=_conda_env_name(python),
        pins=install_order(pins, {p.name: p for p in packages}),
        extra_index_urls=tuple(sorted(indexes)),
        manual=tuple(manual),
        system=system_steps(snapshot, live, label),
        packages_unknown=unknown,
    )


def pytorch_index(pin: Pin) -> str | None:
    """The PyTorch index a pin needs: ``torch==2.4.1+cu121`` is only on ``.../whl/cu121``."""
    if pin.kind != "index":
        return None
    local = Version(pin.version).local
    if local and _TORCH_VARIANT.match(local):
        return PYTORCH_INDEX + local
    return None


def _conda_env_name(python: PythonEnv | None) -> str | None:
    """The conda environment's name, when the snapshot is of one and the name is a plain word."""
    if python is None or python.env_kind != "conda" or not python.env_name:
        return None
    return python.env_name if re.match(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$", python.env_name) else None


def _pin_or_manual(package: Package, where: str) -> Pin | ManualPackage:
    name, version, source = package.name, package.version, package.source
    if source is None or source.kind == "index":
        return Pin(name, version, f"{name}=={version}", "index", package.installer)
    shown_version = version or "(version unknown)"
    url = check_url(source.url, where) if source.url is not None else None
    if url is not None and redact_text(url) != url:
        # A hand-edited snapshot may carry an index token or password in a package URL: the plan
        # is printed and shared, so it never holds one. The person restoring supplies their own.
        return ManualPackage(
            name,
            version,
            f"installed from {redact_text(url)} (the URL carries credentials, never written out): "
            "reinstall it by hand",
        )
    if source.kind == "editable":
        shown = url or "a local folder"
        return ManualPackage(
            name, version, f"editable install from {shown}: reinstall it with pip install -e <path>"
        )
    if url is None:
        return ManualPackage(
            name, version, f"{source.kind} install without a URL ({shown_version}): reinstall it by hand"
        )
    if source.kind == "vcs":
        vcs = source.vcs if source.vcs in _VCS else None
        if vcs is None:
            raise _refuse(where, "VCS", source.vcs)
        target = url if url.startswith(f"{vcs}+") else f"{vcs}+{url}"
        revision = source.commit_id or source.requested_revision
        if revision is not None and not _REVISION.match(revision):
            raise _refuse(where, "VCS revision", revision)
        if revision and not target.endswith(f"@{revision}"):  # a pip freeze URL carries it already
            target = f"{target}@{revision}"
    else:
        target = url
    scheme = urlsplit(target).scheme
    if scheme not in PINNED_SCHEMES:
        return ManualPackage(
            name, version, f"installed from {target} ({scheme} URLs are not pinned): reinstall by hand"
        )
    requirement = f"{name} @ {target}"
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        raise _refuse(where, "URL", url) from None
    if canonicalize_name(parsed.name) != canonicalize_name(name) or parsed.url != target:
        raise _refuse(where, "URL", url)
    return Pin(name, version, requirement, "vcs" if source.kind == "vcs" else "url", package.installer)


def install_order(pins: list[Pin], packages: dict[str, Package]) -> tuple[Pin, ...]:
    """Dependencies before dependents (by Requires-Dist between the pinned packages).

    A single ``pip install -r`` resolves the whole file at once, so pip itself does not need the
    order; it matters for ``--no-deps`` installs done in steps and for people reading the file.
    Requirements behind an ``extra`` are not followed; cycles are broken by name.
    """
    by_key: dict[str, Pin] = {}
    for pin in pins:
        by_key.setdefault(canonicalize_name(pin.name), pin)  # a repeated name: the first entry wins
    needs: dict[str, set[str]] = {key: set() for key in by_key}
    for key, pin in by_key.items():
        package = packages.get(pin.name)
        for line in (package.requires if package is not None else None) or ():
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            if requirement.marker is not None and "extra" in str(requirement.marker):
                continue
            needed = canonicalize_name(requirement.name)
            if needed in by_key and needed != key:
                needs[key].add(needed)
    users: dict[str, set[str]] = {key: set() for key in by_key}
    for key, deps in needs.items():
        for dep in deps:
            users[dep].add(key)
    waiting = {key: len(deps) for key, deps in needs.items()}
    ready: list[str] = [key for key, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    ordered: list[Pin] = []
    while waiting:
        if not ready:  # a cycle: release the alphabetically first package still waiting
            heapq.heappush(ready, min(waiting))
        key = heapq.heappop(ready)
        if key not in waiting:
            continue
        del waiting[key]
        ordered.append(by_key[key])
        for user in users[key]:
            if user in waiting:
                waiting[user] -= 1
                if waiting[user] == 0:
                    heapq.heappush(ready, user)
    return tuple(ordered)


# ---------------------------------------------------------------------------- system layers


def _ok(section: Section | None) -> bool:
    return section is not None and section.ok


def _system_versions(snapshot: Snapshot) -> dict[str, str]:
    """The versions of the layers below Python, by what they are."""
    found: dict[str, str] = {}
    acc, tk = snapshot.accelerators, snapshot.toolkits
    if acc is not None and _ok(acc.nvidia) and acc.nvidia is not None and acc.nvidia.driver_version:
        found["NVIDIA driver"] = acc.nvidia.driver_version
    if acc is not None and _ok(acc.amd) and acc.amd is not None and acc.amd.driver_version:
        found["AMD GPU driver (amdgpu)"] = acc.amd.driver_version
    if tk is not None:
        if _ok(tk.cuda) and tk.cuda is not None and (tk.cuda.nvcc_version or tk.cuda.version):
            found["CUDA toolkit"] = tk.cuda.nvcc_version or tk.cuda.version or ""
        if _ok(tk.cudnn) and tk.cudnn is not None and tk.cudnn.version:
            found["cuDNN (system)"] = tk.cudnn.version
        if _ok(tk.nccl) and tk.nccl is not None and tk.nccl.version:
            found["NCCL (system)"] = tk.nccl.version
        if _ok(tk.rocm) and tk.rocm is not None and tk.rocm.version:
            found["ROCm"] = tk.rocm.version
    if (
        "ROCm" not in found
        and acc is not None
        and _ok(acc.amd)
        and acc.amd is not None
        and acc.amd.rocm_version
    ):
        found["ROCm"] = acc.amd.rocm_version
    if snapshot.python is not None and snapshot.python.version:
        found["Python"] = snapshot.python.version
    return found


def system_steps(
    snapshot: Snapshot, live: Snapshot | None, label: str = "snapshot"
) -> tuple[SystemStep, ...]:
    """Manual steps for the layers pip cannot restore, with what the live machine has now.

    A live snapshot without a python section (the target interpreter was not named) leaves the
    Python step's current version unknown, and the step says how to find it out.
    """
    wanted = _system_versions(snapshot)
    current = _system_versions(live) if live is not None else {}
    steps = []
    for what, version in wanted.items():
        check_system_version(version, f"{label}: {what} version")
        probed = live is not None and (what != "Python" or live.python is not None)
        now = current.get(what, "none") if probed else None
        if now is not None and now != "none" and not _SYSTEM_VERSION.match(now):
            now = "unknown"
        hint = (
            "pass --python PATH to compare the target interpreter"
            if live is not None and not probed
            else None
        )
        steps.append(SystemStep(what, version, now, hint))
    return tuple(steps)
