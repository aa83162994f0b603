"""What each source and artifact signal means on a target: meaning, effort, risk, replacement.

The rule that matters most (PyTorch "HIP (ROCm) semantics"): a ROCm build of PyTorch reuses the
``torch.cuda`` interface, so ``.cuda()``, ``device="cuda"``, ``torch.cuda.*`` and
``torch.backends.cudnn`` (served by MIOpen) work unchanged on AMD GPUs, while on XPU, MPS and
CPU builds they fail (or, behind an ``is_available()`` guard, quietly fall back to the CPU). On
ROCm the risks are compiled code (inline PTX, 32-lane warp masks, CUTLASS), TensorRT and
CUDA-only wheels.

Effort follows SYCLomatic dpct's scale: none (works as is), low (mechanical edit), medium (a
library swap or rebuild with checks), high (no equivalent: rewrite). Risk is what the finding
does to the migration: ``higher`` (fails, or is silently wrong, until reworked), ``moderate``
(needs a documented swap or rebuild), ``lower`` (works, or a small edit).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from envsnap.audit.across_files import CUDA_BRANCH, OPTIONAL_RUN_TIME, TORCH_PATH
from envsnap.audit.judges.artifacts import judge_artifact
from envsnap.audit.judges.base import NAMES, Context, Judge, cuda_api_works, where
from envsnap.audit.judges.compiled import (
    judge_blind_spot,
    judge_cmake,
    judge_compiled,
    judge_cupy_kernel,
    judge_docker,
    judge_gencode,
    judge_kernel_string,
    judge_library,
    judge_metal_kernel,
    judge_ort_provider,
    judge_ptx,
    judge_warp,
    judge_xla_custom_call,
)
from envsnap.audit.judges.device import (
    judge_agnostic,
    judge_compile,
    judge_cuda_amp,
    judge_cuda_api,
    judge_cuda_guard,
    judge_cudnn,
    judge_device_choices,
    judge_device_default,
    judge_device_hardcode,
    judge_float64,
    judge_jax_x64,
    judge_nccl,
)
from envsnap.audit.judges.hipify import judge_inventory, judge_unsupported
from envsnap.audit.judges.packages import (
    judge_apex_pip,
    judge_cuda_index,
    judge_extra_index,
    judge_import,
    judge_requirement,
    judge_torch_pin,
    package_finding,
)
from envsnap.audit.model import (
    ALTERNATIVE,
    CPU_BUILD,
    DEVICE_CHOICE,
    OPT_IN_PATH,
    OPTIONAL_BUILD,
    OPTIONAL_DISTRIBUTION,
    TENSOR_DISPATCH,
    Finding,
    Signal,
    Target,
)

__all__ = ["JUDGES", "NAMES", "Context", "cuda_api_works", "judge", "package_finding", "where"]


JUDGES: Mapping[str, Judge] = {
    "device-hardcode": judge_device_hardcode,
    "device-choices": judge_device_choices,
    "cuda-guard": judge_cuda_guard,
    "cuda-api": judge_cuda_api,
    "cudnn-flag": judge_cudnn,
    "cuda-amp": judge_cuda_amp,
    "nccl-backend": judge_nccl,
    "float64": judge_float64,
    "device-agnostic": judge_agnostic,
    "import": judge_import,
    "requirement": judge_requirement,
    "torch-pin": judge_torch_pin,
    "apex-pip": judge_apex_pip,
    "extra-index-url": judge_extra_index,
    "cuda-index": judge_cuda_index,
    "cuda-extension": judge_compiled,
    "cuda-source": judge_compiled,
    "cuda-library": judge_library,
    "metal-kernel": judge_metal_kernel,
    "cupy-kernel": judge_cupy_kernel,
    "xla-custom-call": judge_xla_custom_call,
    "cuda-kernel-string": judge_kernel_string,
    "ort-provider": judge_ort_provider,
    "inline-ptx": judge_ptx,
    "warp32-mask": judge_warp,
    "gencode": judge_gencode,
    "cmake-cuda": judge_cmake,
    "docker-cuda-base": judge_docker,
    "artifact": judge_artifact,
    "device-default": judge_device_default,
    "torch-compile": judge_compile,
    "jax-x64": judge_jax_x64,
    "cache-hint": judge_blind_spot,
    "nvtx": judge_blind_spot,
    "cufile": judge_blind_spot,
    "cublaslt-layout": judge_blind_spot,
    "labeled-partition": judge_blind_spot,
    "hipify-inventory": judge_inventory,
    "hipify-unsupported": judge_unsupported,
}
"""Every signal kind the scanners emit, and its judge."""


_RUNS_WITHOUT: tuple[tuple[str, str, str], ...] = (
    (
        "guarded-load=1",
        "Compiled just in time, and built or loaded inside a try whose handler swallows the failure: where "
        "it does not compile, the project takes its PyTorch path.",
        "nothing to port (the PyTorch path is slower); port the kernel for speed",
    ),
    (
        "optional-extension=1",
        "An optional extension: the project imports its module only in a try that falls back without it, so "
        "where it does not build the project runs its other path.",
        "nothing to port (the fallback is slower); port the kernel for speed",
    ),
    (
        OPTIONAL_BUILD,
        "Built at install inside a try whose handler lets the install go on without it: where it does not "
        "build, the package runs without this kernel.",
        "nothing to port to run; port the kernel to get its feature on the target",
    ),
    (
        OPTIONAL_DISTRIBUTION,
        "In a distribution of its own that the project installs only with an extra: the default install "
        "never builds it, and the project runs without it.",
        "nothing to port to run; port it to offer that extra on the target",
    ),
    (
        ALTERNATIVE,
        "In a module the project loads only as one of two implementations (an if/else that binds the same"
        " names from a twin module): where this one is not chosen, or does not build, the twin runs.",
        "nothing to port to run (the twin runs); port it for its speed on the target",
    ),
    (
        TENSOR_DISPATCH,
        "Compiled just in time and called only for CUDA tensors: the module tests the tensor (`x.is_cuda`)"
        " and runs its torch implementation for any other, so on {target} the kernel is never built.",
        "nothing to port to run (the torch path is slower); port the kernel for speed",
    ),
    (
        TORCH_PATH,
        "CuPy is an opt-in here (no default install brings it): without it the project's torch ops do the"
        " same work on the device, so these kernels are a fast path it can go without on {target}.",
        "nothing to port to run (the torch path); port the kernel for speed",
    ),
)
"""Compiled code the project runs without, by its across_files marker: a JIT build in a ``try`` that swallows
the failure (``_jit_only``), a setup-time extension imported only in a guard that falls back
(``_optional_extensions``), every install-time extension built in a ``try`` the install survives
(``_optional_build``), a module loaded only as one of two implementations (``_alternatives``), CuPy kernels of
a torch project that never installs CuPy (``_optional_run_time_compiler``). Off CUDA, where it does not build,
another path runs: nothing to port to run. ``{target}`` is the target's name."""


CPU_BUILD_RULE = "cuda-kernel-cpu-build"


def judge(signal: Signal, target: Target, ctx: Context | None = None) -> Finding | None:
    """The finding a signal makes on ``target``, or None when it means nothing there."""
    if "branch=rocm-only" in signal.detail:
        return None  # the port's own code (HIP), compiled by a ROCm build only
    if target.kind == "rocm" and "branch=not-rocm" in signal.detail:
        return None  # a branch the ROCm build leaves out (#ifndef USE_ROCM ... #endif)
    handler = JUDGES.get(signal.kind)
    found = handler(signal, target, ctx or Context()) if handler else None
    opt_in = next((d.removeprefix(OPT_IN_PATH) for d in signal.detail if d.startswith(OPT_IN_PATH)), None)
    if found is not None and opt_in is not None and found.risk != "lower" and target.kind != "cuda":
        # In the function that imports a package the default install lacks (across_files._opt_in_paths):
        # only a user who installed it reaches this line.
        return msgspec.structs.replace(
            found,
            meaning=f"{found.meaning} It runs only in the function that imports {opt_in}, an opt-in the "
            "project does not install by default.",
            risk="lower",
        )
    # Imported only where the project's own device test picks CUDA (across_files._cuda_branch_modules); a
    # ROCm torch's device is 'cuda' too, so there the branch is taken.
    cuda_device = target.kind in ("cuda", "rocm")
    if found is not None and CUDA_BRANCH in signal.detail and found.risk != "lower" and not cuda_device:
        return msgspec.structs.replace(
            found,
            meaning=f"In a module the project imports only where its device test picks CUDA: on "
            f"{NAMES[target.kind]} it takes its other path. {found.meaning}",
            effort="none",
            risk="lower",
            replacement="nothing to port to run; port it for this fast path on the target",
        )
    if found is not None and found.risk != "lower" and target.kind != "cuda":
        # A choice that tests the device is answered as CUDA by a ROCm torch: there the module is chosen.
        rocm_takes_it = target.kind == "rocm" and DEVICE_CHOICE in signal.detail
        for marker, why, replacement in _RUNS_WITHOUT:
            if marker in signal.detail and not (marker in (ALTERNATIVE, TENSOR_DISPATCH) and rocm_takes_it):
                return msgspec.structs.replace(
                    found,
                    meaning=f"{why.format(target=NAMES[target.kind])} {found.meaning}",
                    effort="none",
                    risk="lower",
                    replacement=replacement,
                )
    if found is not None and OPTIONAL_RUN_TIME in signal.detail and found.risk == "higher":
        # CuPy kernels of a project that installs CuPy only with an extra (across_files): without CuPy the
        # project runs its CPU ops; on a target with no CuPy build the kernels are a missing fast path.
        return msgspec.structs.replace(
            found,
            meaning=f"{found.meaning} CuPy is an optional extra here: without it the project runs its "
            f"CPU (NumPy) path, so on {NAMES[target.kind]} this GPU path is missing, not the project.",
            risk="moderate",
        )
    fallback = "torch-fallback=1" in signal.detail and target.kind != "cuda"
    if found is not None and fallback and found.risk != "lower":
        # A JIT-built kernel of a project whose ops have a torch implementation for every device
        # (across_files._jit_only): off CUDA it is never compiled and the torch path runs, only slower.
        return msgspec.structs.replace(
            found,
            meaning="Compiled just in time, only where the project loads its CUDA kernels; its custom ops "
            f"also have a device-generic torch implementation, which runs on {NAMES[target.kind]}: "
            f"{found.meaning}",
            effort="none",
            risk="lower",
            replacement="nothing to port (the torch path is slower); port the kernel for speed",
        )
    if found is not None and CPU_BUILD in signal.detail and found.risk != "lower" and target.kind != "cuda":
        # The CMake build adds CUDA only where nvcc is found (across_files._cpu_builds): elsewhere, a ROCm
        # machine included, the package builds its CPU implementation and none of this is compiled. A rule
        # of its own: one CPU build to use, not kernels that add up (verdict.SEVERAL_KERNELS).
        return msgspec.structs.replace(
            found,
            rule=CPU_BUILD_RULE,
            meaning=f"Built only where nvcc is found: the project's CMake build goes on without CUDA and "
            f"compiles its CPU implementation, so on {NAMES[target.kind]} tensors move to the CPU around the "
            f"call. {found.meaning}",
            effort="medium",
            risk="moderate",
            replacement="build without CUDA (the CPU implementation) and move the op's inputs to the CPU; "
            "port the kernel for speed",
        )
    return found
