"""Which copy of a CUDA/ROCm library did the framework actually load? (docs/compat-rules.md B5.2, B5.4)

pip-installed torch finds its CUDA libraries in the ``nvidia-*`` wheels through RPATH, but those
wheels' own RUNPATH loses to ``LD_LIBRARY_PATH``: a toolkit directory there can slip an older
``libnvJitLink``/``libcudnn`` under torch ("undefined symbol: __nvJitLinkComplete_12_4", "cuDNN
version incompatibility"). The snapshot records what was really mapped after import; that is the
evidence used first, and a conflicting ``LD_LIBRARY_PATH`` is reported when nothing was loaded yet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from packaging.utils import canonicalize_name
from packaging.version import Version

from envsnap.rules import facts, knowledge
from envsnap.rules.base import ev, finding, major_minor, rule, version
from envsnap.rules.toolkit import system_cuda
from envsnap.snapshot.model import Evidence, Finding, LoadedLibrary, Package, Severity, Snapshot, TorchInfo

ID = "ld-library-path-shadowing"
SOURCE = "https://github.com/pytorch/pytorch/issues/131312"
JAX_SOURCE = "https://docs.jax.dev/en/latest/installation.html"

_SO_VERSION = re.compile(r"\.so\.(\d+(?:\.\d+)*)$")
_TOOLKIT_DIR = re.compile(r"/cuda-(\d+\.\d+)(/|$)")
_ROCM_LIBS = ("libamdhip64", "libMIOpen", "librocblas", "libhipblaslt", "libhipblas", "librccl")
_FOREIGN = ("toolkit", "system", "conda")


def bundled_wheel(snapshot: Snapshot, lib_name: str) -> Package | None:
    """The installed nvidia-* wheel that ships ``lib_name``, if any."""
    row = next((r for r in knowledge.bundled_libraries() if lib_name.startswith(r.lib)), None)
    if row is None:
        return None
    for package in snapshot.packages or ():
        name = canonicalize_name(package.name)
        if any(name == base or re.fullmatch(rf"{re.escape(base)}-cu\d+", name) for base in row.wheels):
            return package
    return None


@rule(ID)
def shadowed_libraries(snapshot: Snapshot) -> Iterator[Finding]:
    """A CUDA/ROCm library mapped from a toolkit/system/conda path although the framework bundles it."""
    torch = facts.torch(snapshot)
    if torch is None or not torch.loaded_libraries:
        return
    found = list(_cuda_shadowing(snapshot, torch)) + list(_rocm_shadowing(snapshot, torch))
    yield from found
    if not found:
        yield from _conflicting_ld_library_path(snapshot, torch)


def _cuda_shadowing(snapshot: Snapshot, torch: TorchInfo) -> Iterator[Finding]:
    if not torch.cuda:
        return
    for lib in torch.loaded_libraries or ():
        if lib.origin not in _FOREIGN:
            continue
        wheel = bundled_wheel(snapshot, lib.name)
        if wheel is None:
            continue
        severity, relation = _compare(lib, wheel)
        yield finding(
            ID,
            severity,
            f"{lib.name} was loaded from {lib.origin} path {lib.path}, not from the installed "
            f"{wheel.name} {wheel.version}{relation}",
            _fix(snapshot),
            SOURCE,
            [
                ev(f"frameworks.torch.loaded_libraries[{lib.name}].path", lib.path),
                ev(f"packages[{wheel.name}].version", wheel.version),
                *_ld_evidence(snapshot),
            ],
        )


def _compare(lib: LoadedLibrary, wheel: Package) -> tuple[Severity, str]:
    """Error when the foreign copy is another major or older than the wheel; else a warning."""
    match = _SO_VERSION.search(lib.path) or _SO_VERSION.search(lib.name)
    loaded = version(match.group(1)) if match else None
    bundled = version(wheel.version)
    if loaded is None or bundled is None:
        return "warning", ""
    if loaded.release[0] != bundled.release[0]:
        return "error", f" (major {loaded.release[0]} instead of {bundled.release[0]})"
    if len(loaded.release) > 1 and loaded < Version(
        ".".join(map(str, bundled.release[: len(loaded.release)]))
    ):
        return "error", f" (an older {loaded})"
    return "warning", ""


def _rocm_shadowing(snapshot: Snapshot, torch: TorchInfo) -> Iterator[Finding]:
    if not torch.hip:
        return
    torch_dist = facts.package(snapshot, "torch")
    if torch_dist is None or (torch_dist.installer or "pip") not in ("pip", "uv"):
        return  # a conda or system torch links the system ROCm by design
    for lib in torch.loaded_libraries or ():
        if lib.origin in _FOREIGN and lib.name.startswith(_ROCM_LIBS):
            yield finding(
                ID,
                "warning",
                f"{lib.name} was loaded from {lib.origin} path {lib.path} instead of the copy bundled in "
                "the torch ROCm wheel",
                "Remove /opt/rocm*/lib from LD_LIBRARY_PATH for this environment, or use a torch build that "
                "matches the system ROCm.",
                SOURCE,
                [
                    ev(f"frameworks.torch.loaded_libraries[{lib.name}].path", lib.path),
                    *_ld_evidence(snapshot),
                ],
            )


def _conflicting_ld_library_path(snapshot: Snapshot, torch: TorchInfo) -> Iterator[Finding]:
    """LD_LIBRARY_PATH names a CUDA toolkit older than (or another major than) torch's CUDA."""
    built = major_minor(torch.cuda)
    ld_path = facts.variables(snapshot).get("LD_LIBRARY_PATH", "")
    has_wheels = any(canonicalize_name(p.name).startswith("nvidia-") for p in snapshot.packages or ())
    if built is None or not ld_path or not has_wheels:
        return
    toolkit = system_cuda(snapshot)
    for entry in ld_path.split(":"):
        if not entry or "compat" in entry.split("/"):
            continue  # forward-compat libcuda: the driver rule's business
        match = _TOOLKIT_DIR.search(entry)
        dir_cuda = match.group(1) if match else None
        if (
            dir_cuda is None
            and toolkit is not None
            and toolkit.path
            and entry.startswith(toolkit.path.rstrip("/"))
        ):
            dir_cuda = toolkit.version
        have = major_minor(dir_cuda)
        if have is None or (have >= built and have[0] == built[0]):
            continue
        yield finding(
            ID,
            "warning",
            f"LD_LIBRARY_PATH puts CUDA {have[0]}.{have[1]} libraries ({entry}) ahead of the CUDA "
            f"{built[0]}.{built[1]} wheels torch uses: undefined nvJitLink/cuDNN symbols "
            "at import or first use",
            _fix(snapshot),
            JAX_SOURCE,
            [ev("environment.variables.LD_LIBRARY_PATH", ld_path), ev("frameworks.torch.cuda", torch.cuda)],
        )
        return


def _ld_evidence(snapshot: Snapshot) -> list[Evidence]:
    ld_path = facts.variables(snapshot).get("LD_LIBRARY_PATH")
    return [ev("environment.variables.LD_LIBRARY_PATH", ld_path)] if ld_path else []


def _fix(snapshot: Snapshot) -> str:
    if facts.variables(snapshot).get("LD_LIBRARY_PATH"):
        return (
            "Remove CUDA toolkit/conda library directories from LD_LIBRARY_PATH for this environment "
            "(`unset LD_LIBRARY_PATH` or drop the /usr/local/cuda*/lib64 entries) "
            "so torch loads its bundled wheels."
        )
    return (
        "Something loaded a system copy before torch (another library's dlopen or /etc/ld.so.conf): "
        "import torch first, or remove the conflicting system library from the loader path."
    )
