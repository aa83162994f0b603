"""The toolkit probe: ``toolkits`` — the CUDA, cuDNN, NCCL, ROCm and HIP installed on the system.

"System" means apart from whatever a framework wheel bundles: the toolkit a ``setup.py`` build of a
CUDA extension or a ``hipcc`` compile would use. A CUDA toolkit without a driver (this development
machine) is a fine, ordinary state: ``toolkits.cuda`` is ok while ``accelerators.nvidia`` is skipped.
The pieces live in ``cuda_toolkit.py``, ``cuda_libs.py`` and ``rocm_install.py``.
"""

from __future__ import annotations

from pathlib import Path

from envsnap.probes.base import ProbeContext
from envsnap.probes.toolkits import cuda as cuda_toolkit
from envsnap.probes.toolkits import cuda_libs
from envsnap.probes.toolkits import rocm as rocm_install
from envsnap.probes.toolkits.rocm import display_path
from envsnap.snapshot.model import CudaToolkit, LibraryInstall, RocmToolkit, ToolkitInstall, Toolkits


def _major_minor(version: str | None) -> str | None:
    parts = (version or "").split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 and all(p.isdigit() for p in parts[:2]) else None


def _default_tree(
    ctx: ProbeContext, trees: tuple[cuda_toolkit.CudaTree, ...]
) -> cuda_toolkit.CudaTree | None:
    """The tree builds use when no nvcc ran: ``$CUDA_HOME``, ``/usr/local/cuda``, or the only one."""
    for home in (ctx.environ.get("CUDA_HOME"), ctx.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            real = rocm_install.resolve_under(ctx, ctx.path(home))
            match = next((t for t in trees if t.home == real), None)
            if match is not None:
                return match
    return trees[0] if len(trees) == 1 else None


def probe_cuda(ctx: ProbeContext) -> tuple[CudaToolkit, list[Path]]:
    """The CUDA toolkit section, and the toolkit trees to search for cuDNN and NCCL (best first)."""
    cuda_home = ctx.environ.get("CUDA_HOME") or ctx.environ.get("CUDA_PATH") or None
    nvcc_path = cuda_toolkit.find_nvcc(ctx)
    nvcc = cuda_toolkit.run_nvcc(ctx, nvcc_path) if nvcc_path is not None else None
    trees = cuda_toolkit.installations(ctx, (cuda_home,), nvcc)
    installs = tuple(ToolkitInstall(version=t.version, path=display_path(ctx, t.home)) for t in trees) or None
    homes = [t.home for t in trees]
    if nvcc is not None:
        section = CudaToolkit(
            status="ok",
            nvcc_version=nvcc.version,
            version=nvcc.release,
            path=display_path(ctx, nvcc.home),
            cuda_home=cuda_home,
            installations=installs,
        )
        return section, [nvcc.home, *(h for h in homes if h != nvcc.home)]
    tree = _default_tree(ctx, trees)
    if tree is None:
        reason = "no nvcc on PATH and no /usr/local/cuda*"
        if trees:
            reason = (
                f"no nvcc on PATH and {len(trees)} toolkits under /usr/local with none selected by CUDA_HOME"
            )
        return CudaToolkit(
            status="skipped", reason=reason, cuda_home=cuda_home, installations=installs
        ), homes
    section = CudaToolkit(
        status="ok",
        nvcc_version=cuda_toolkit.component_version(tree, "cuda_nvcc"),
        version=_major_minor(tree.version),
        path=display_path(ctx, tree.home),
        cuda_home=cuda_home,
        installations=installs,
    )
    return section, [tree.home, *(h for h in homes if h != tree.home)]


def _library(ctx: ProbeContext, library: cuda_libs.Library, homes: list[Path], label: str) -> LibraryInstall:
    found = cuda_libs.find(ctx, library, homes)
    if found is None:
        return LibraryInstall(
            status="skipped", reason=f"{label} not found in the CUDA toolkit or system directories"
        )
    return LibraryInstall(status="ok", version=found.version, path=found.path)


def probe_rocm(ctx: ProbeContext) -> tuple[RocmToolkit, RocmToolkit]:
    """The ROCm and HIP sections."""
    trees = rocm_install.installations(ctx)
    installs = tuple(ToolkitInstall(version=t.version, path=t.path) for t in trees) or None
    tree = rocm_install.current(ctx, trees)
    if tree is None:
        reason = (
            "no /opt/rocm or /opt/rocm-*"
            if not trees
            else "several /opt/rocm-* and no /opt/rocm or ROCM_PATH"
        )
        rocm = RocmToolkit(status="skipped", reason=reason, installations=installs)
    else:
        rocm = RocmToolkit(status="ok", version=tree.version, path=tree.path, installations=installs)
    hip = rocm_install.hip_version(ctx, tree)
    if hip is None:
        return rocm, RocmToolkit(status="skipped", reason="no hipconfig on PATH and no HIP in a ROCm tree")
    return rocm, RocmToolkit(status="ok", version=hip.version, path=hip.path)


def probe(ctx: ProbeContext) -> Toolkits:
    """Every system toolkit.

    Command line equivalent: ``nvcc --version; cat /usr/local/cuda*/version.json; hipconfig --version``.

    Args:
        ctx: what to probe; ``ctx.environ`` gives PATH, CUDA_HOME and ROCM_PATH, ``ctx.root`` the filesystem.

    Returns:
        The toolkits section, each part ok or skipped with its reason.
    """
    cuda, homes = probe_cuda(ctx)
    rocm, hip = probe_rocm(ctx)
    return Toolkits(
        cuda=cuda,
        cudnn=_library(ctx, cuda_libs.CUDNN, homes, "cuDNN"),
        nccl=_library(ctx, cuda_libs.NCCL, homes, "NCCL"),
        rocm=rocm,
        hip=hip,
    )
