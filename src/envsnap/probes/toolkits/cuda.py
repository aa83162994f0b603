"""System CUDA toolkits: which ``nvcc`` a build would use, and every toolkit tree on the host.

- The compiler: ``nvcc`` on PATH (from ``ctx.environ``), else ``$CUDA_HOME``/``$CUDA_PATH``, else
  ``/usr/local/cuda``; its ``nvcc --version`` line ``release 13.0, V13.0.88`` gives the toolkit's
  major.minor and nvcc's full version. The tree it belongs to comes from ``nvcc.profile`` beside the
  real binary, or, for a wrapper script on PATH (as on the development machine), from
  ``nvcc --dryrun``, which prints its own ``_HERE_`` directory.
- The trees: ``/usr/local/cuda-*`` (and a real ``/usr/local/cuda`` directory, and ``$CUDA_HOME``),
  versioned by ``version.json`` (``{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}, ...}``),
  else ``version.txt`` (toolkits up to 11.0: ``CUDA Version 10.2.89``), else their own nvcc.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from envsnap.probes.base import ProbeContext, read_text, run_command
from envsnap.probes.toolkits.rocm import display_path, resolve_under, which_program

_NVCC_RELEASE = re.compile(r"release (\d+\.\d+), V([\d.]+)")
_HERE = re.compile(r"^#\$ _HERE_=(.+)$", re.MULTILINE)
_VERSION_TXT = re.compile(r"CUDA Version\s+([\d.]+)")


@dataclass(frozen=True)
class Nvcc:
    """One nvcc that ran."""

    release: str
    """Toolkit major.minor, e.g. "13.0"."""
    version: str
    """nvcc's full version, e.g. "13.0.88"."""
    home: Path
    """The toolkit tree, under the probe root."""


@dataclass(frozen=True)
class CudaTree:
    """One toolkit installation."""

    home: Path
    version: str | None
    json: dict[str, object]
    """Parsed version.json (empty when there is none)."""


def _run_nvcc(ctx: ProbeContext, nvcc: Path, *args: str) -> str | None:
    """nvcc's output, stdout then stderr (``--dryrun`` writes its trace to stderr)."""
    done = run_command([str(nvcc), *args], timeout_s=min(ctx.timeout_s, 10.0), env=ctx.environ)
    return done.stdout + done.stderr if done.returncode == 0 else None


def _home_of(ctx: ProbeContext, nvcc: Path) -> Path:
    real = resolve_under(ctx, nvcc)
    if (real.parent / "nvcc.profile").is_file():
        return real.parent.parent
    dryrun = _run_nvcc(ctx, nvcc, "--dryrun", "-x", "cu", "-c", os.devnull, "-o", os.devnull) or ""
    match = _HERE.search(dryrun)
    if match:  # nvcc reports the host's path; map it under the probe root like every other path
        return ctx.path(os.path.normpath(os.path.join(match.group(1).strip(), "..")))
    return real.parent.parent


def run_nvcc(ctx: ProbeContext, nvcc: Path) -> Nvcc | None:
    """``nvcc --version`` parsed, with the tree the binary belongs to; None when it does not run."""
    match = _NVCC_RELEASE.search(_run_nvcc(ctx, nvcc, "--version") or "")
    if match is None:
        return None
    return Nvcc(release=match.group(1), version=match.group(2), home=_home_of(ctx, nvcc))


def find_nvcc(ctx: ProbeContext) -> Path | None:
    """The nvcc a build would pick: PATH first, then ``$CUDA_HOME``/``$CUDA_PATH``, then /usr/local/cuda."""
    on_path = which_program(ctx, "nvcc")
    if on_path is not None:
        return on_path
    for home in (ctx.environ.get("CUDA_HOME"), ctx.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (candidate := ctx.path(home) / "bin" / "nvcc").is_file():
            return candidate
    return None


def read_tree(ctx: ProbeContext, home: Path, release: str | None = None) -> CudaTree:
    """A tree's version: its version file, else ``release`` (its nvcc's, already run), else its nvcc's."""
    data: dict[str, object] = {}
    try:
        loaded = json.loads(read_text(home / "version.json") or "null")
        data = loaded if isinstance(loaded, dict) else {}
    except ValueError:
        data = {}
    sdk = data.get("cuda")
    version = sdk.get("version") if isinstance(sdk, dict) else None
    if not isinstance(version, str):
        match = _VERSION_TXT.search(read_text(home / "version.txt") or "")
        version = match.group(1) if match else None
    version = version or release
    if version is None and (home / "bin" / "nvcc").is_file():
        ran = run_nvcc(ctx, home / "bin" / "nvcc")
        version = ran.release if ran else None
    return CudaTree(home=home, version=version, json=data)


def component_version(tree: CudaTree, component: str) -> str | None:
    """A component's version from version.json, e.g. ``cuda_nvcc`` → ``12.4.131``."""
    entry = tree.json.get(component)
    value = entry.get("version") if isinstance(entry, dict) else None
    return value if isinstance(value, str) else None


def _is_tree(path: Path) -> bool:
    return any(
        (path / name).exists() for name in ("version.json", "version.txt", "bin/nvcc", "include/cuda.h")
    )


def installations(
    ctx: ProbeContext, extra: tuple[str | None, ...] = (), ran: Nvcc | None = None
) -> tuple[CudaTree, ...]:
    """Every toolkit tree: ``/usr/local/cuda*`` plus the given homes, links resolved, by path.

    Args:
        ctx: the probe context.
        extra: more toolkit homes (``$CUDA_HOME``), as host paths.
        ran: the nvcc already run, whose release versions its own tree without running it again.
    """
    local = ctx.path("/usr/local")
    try:
        names = [name for name in os.listdir(local) if name == "cuda" or name.startswith("cuda-")]
    except OSError:
        names = []
    candidates = [local / name for name in names] + [ctx.path(home) for home in extra if home]
    homes = {resolve_under(ctx, c) for c in candidates if c.is_dir() and _is_tree(c)}
    ordered = sorted(homes, key=lambda h: display_path(ctx, h))
    return tuple(read_tree(ctx, home, ran.release if ran and ran.home == home else None) for home in ordered)
