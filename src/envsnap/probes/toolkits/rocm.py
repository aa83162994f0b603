"""Installed ROCm user space: which trees exist under ``/opt``, which one is current, and their versions.

Shared by the AMD probe (``accelerators.amd.rocm_version``) and the toolkit probe
(``toolkits.rocm`` / ``toolkits.hip``), so both say the same thing. Sources, cheapest first:
- ``<tree>/.info/version`` (rocm-core), e.g. ``6.2.4-139``: the build number is dropped;
- HIP: ``hipconfig --version`` when it is on PATH (``6.2.41134-65d174c3e``), else
  ``<tree>/.info/version-hip``, else ``<tree>/include/hip/hip_version.h`` (older trees:
  ``<tree>/hip/include/hip/hip_version.h``).
The current tree is ``$ROCM_PATH``, else ``/opt/rocm`` (usually a link to ``/opt/rocm-X.Y.Z``), else
the only ``/opt/rocm-*`` there is.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from envsnap.probes.base import ProbeContext, read_text, run_command

_VERSION = re.compile(r"^\s*(\d+\.\d+(?:\.\d+)?)")
_HIP_DEFINE = re.compile(
    r"^\s*#\s*define\s+HIP_VERSION_(MAJOR|MINOR|PATCH|GITHASH)\s+\"?([^\"\s]*)\"?", re.MULTILINE
)
_HIPCONFIG = re.compile(r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z]+)?)")


@dataclass(frozen=True)
class RocmTree:
    """One ROCm installation."""

    path: str
    """Absolute path as seen on the probed host (not under the test root), links resolved."""
    version: str | None
    """``major.minor.patch`` from ``.info/version``."""


def display_path(ctx: ProbeContext, path: Path) -> str:
    """The absolute path ``path`` (which lies under ``ctx.root``) has on the probed host."""
    try:
        return "/" + path.relative_to(ctx.root).as_posix().lstrip("/")
    except ValueError:
        return str(path)


def resolve_under(ctx: ProbeContext, path: Path) -> Path:
    """``realpath`` of ``path`` on the probed host, absolute link targets kept under ``ctx.root``.

    Args:
        ctx: the probe context.
        path: a path under ``ctx.root``.

    Returns:
        The resolved path, still under ``ctx.root``; unresolvable parts are kept as they are.
    """
    try:
        parts = path.relative_to(ctx.root).parts
    except ValueError:
        return Path(os.path.realpath(path))
    resolved = ctx.root
    pending = list(parts)
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            resolved = resolved.parent if resolved != ctx.root else resolved
            continue
        candidate = resolved / part
        try:
            target = os.readlink(candidate)
        except OSError:
            resolved = candidate
            continue
        hops += 1
        if hops > 40:  # a link loop must not hang the probe
            return path
        if os.path.isabs(target):
            resolved = ctx.root
        pending = [p for p in Path(target).parts if p != "/"] + pending
    return resolved


def read_version_file(path: Path) -> str | None:
    """``major.minor[.patch]`` from a rocm-core style version file (``6.2.4-139`` → ``6.2.4``)."""
    text = read_text(path, limit=4096)
    match = _VERSION.match(text or "")
    return match.group(1) if match else None


def _tree(ctx: ProbeContext, path: Path) -> RocmTree:
    real = resolve_under(ctx, path)
    return RocmTree(path=display_path(ctx, real), version=read_version_file(real / ".info" / "version"))


def installations(ctx: ProbeContext) -> tuple[RocmTree, ...]:
    """Every ``/opt/rocm-*`` tree (and ``/opt/rocm`` when it is a real directory), by path."""
    opt = ctx.path("/opt")
    try:
        names = os.listdir(opt)
    except OSError:
        return ()
    trees: dict[str, RocmTree] = {}
    for name in names:
        if name == "rocm" or name.startswith("rocm-"):
            candidate = opt / name
            if candidate.is_dir():
                tree = _tree(ctx, candidate)
                trees[tree.path] = tree
    return tuple(trees[key] for key in sorted(trees))


def current(ctx: ProbeContext, trees: tuple[RocmTree, ...] | None = None) -> RocmTree | None:
    """The ROCm tree programs on this host use by default, or None when there is none."""
    rocm_path = ctx.environ.get("ROCM_PATH") or ctx.environ.get("ROCM_HOME")
    for candidate in (rocm_path, "/opt/rocm"):
        if candidate and ctx.path(candidate).is_dir():
            return _tree(ctx, ctx.path(candidate))
    trees = installations(ctx) if trees is None else trees
    return trees[0] if len(trees) == 1 else None


def which_program(ctx: ProbeContext, program: str) -> Path | None:
    """``program`` on the probed host's PATH (from ``ctx.environ``), mapped under ``ctx.root``."""
    for entry in ctx.environ.get("PATH", "").split(os.pathsep):
        if entry:
            found = shutil.which(program, path=str(ctx.path(entry)))
            if found:
                return Path(found)
    return None


@dataclass(frozen=True)
class HipVersion:
    """The HIP runtime version and where it was read."""

    version: str
    """As ``hipconfig --version`` prints it, e.g. ``6.2.41134-65d174c3e`` (same form as torch.version.hip)."""
    path: str
    """The tree (or hipconfig's) location on the probed host."""


def hip_version(ctx: ProbeContext, tree: RocmTree | None) -> HipVersion | None:
    """The HIP version of ``tree`` (or of ``hipconfig`` on PATH, which wins when present)."""
    hipconfig = which_program(ctx, "hipconfig")
    if hipconfig is not None:
        done = run_command([str(hipconfig), "--version"], timeout_s=min(ctx.timeout_s, 10.0), env=ctx.environ)
        match = _HIPCONFIG.search(done.stdout) if done.returncode == 0 else None
        if match:
            home = resolve_under(ctx, hipconfig).parent.parent
            return HipVersion(version=match.group(1), path=display_path(ctx, home))
    if tree is None:
        return None
    root = ctx.path(tree.path)
    from_file = read_text(root / ".info" / "version-hip", limit=4096)
    if from_file and from_file.strip():
        return HipVersion(version=from_file.strip().splitlines()[0], path=tree.path)
    for header in (
        root / "include" / "hip" / "hip_version.h",
        root / "hip" / "include" / "hip" / "hip_version.h",
    ):
        parts = dict(_HIP_DEFINE.findall(read_text(header) or ""))
        if {"MAJOR", "MINOR", "PATCH"} <= parts.keys():
            version = f"{parts['MAJOR']}.{parts['MINOR']}.{parts['PATCH']}"
            githash = parts.get("GITHASH", "")
            return HipVersion(version=f"{version}-{githash}" if githash else version, path=tree.path)
    return None
