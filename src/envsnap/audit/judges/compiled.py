"""Compiled code on the target: CUDA extensions and sources, CUDA libraries, inline PTX, warp size,
arch flags, CMake and base images."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from packaging.version import Version

from envsnap.audit import knowledge
from envsnap.audit.across_files import CHECKED_LOAD, HELPER_SOURCE, OPTIONAL_MODULE
from envsnap.audit.judges.base import (
    DOCKER_SOURCE,
    DPCT_SOURCE,
    HIPIFY_SOURCE,
    LOWER_RISK,
    MPS_SOURCE,
    NAMES,
    SYCL_SOURCE,
    TRT_SOURCE,
    Context,
    make_finding,
)
from envsnap.audit.model import (
    OPT_IN,
    OWN_COMPILER,
    TORCH_FIRST,
    TRITON_ASM,
    UNREFERENCED,
    Effort,
    Finding,
    Risk,
    Signal,
    Target,
)
from envsnap.rules import compat

# ---------------------------------------------------------------------------- compiled code


def judge_compiled(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    rule = "cuda-extension" if signal.kind == "cuda-extension" else "cuda-source"
    counts = signal.facts()
    summary = ""
    if "kernels" in counts:
        summary = (
            f" ({counts.get('kernels', '0')} kernels, {counts.get('launches', '0')} launches, "
            f"{counts.get('runtime_calls', '0')} CUDA API calls)"
        )
    if counts.get("api") and target.kind == "rocm":
        # Which HIPIFY table to read for each family (cuda -> CUDA_Runtime_API, cublas -> CUBLAS_API ...).
        families = ", ".join(f"{name} ×{n}" for name, n in (p.split(":") for p in counts["api"].split(",")))
        summary += f"; API calls by family: {families} (the HIPIFY inventory maps each one)"
    host_only = signal.subject == "CUDA host code"
    helpers = "kernels" in counts and all(
        counts.get(key, "0") == "0" for key in ("kernels", "launches", "runtime_calls")
    )
    if target.kind == "cuda":
        if signal.kind != "cuda-extension":
            return None
        arch = target.archs[0] if target.archs else "the target arch"
        return make_finding(
            signal,
            rule,
            f"Compiled for the archs it is built with: rebuild so {arch} is among them.",
            "low",
            "lower",
            f"build on the target, or add it to TORCH_CUDA_ARCH_LIST ({arch})",
            HIPIFY_SOURCE,
        )
    if target.kind == "rocm" and "run-time=1" in signal.detail and not host_only:
        # No extension build in the tree, kernels compiled at run time (across_files._run_time_compiled):
        # the same effort and risk as a hipified build, without naming a torch build the project lacks.
        # Host code (KeOps' NVRTC binders, compiled by the host compiler) keeps the hipify wording.
        return make_finding(
            signal,
            rule,
            f"CUDA code{summary} compiled at run time (the project builds no extension): on ROCm, "
            "hiprtc compiles the same dialect (CuPy's ROCm build uses it); what HIP cannot compile "
            "(inline PTX, warp-size assumptions) is listed separately.",
            "low" if helpers else "medium",
            "moderate",
            "run it under CuPy's ROCm build (hiprtc); or port with hipify-clang",
            HIPIFY_SOURCE,
        )
    if target.kind == "rocm":
        # A header of device helpers or dispatch macros (no kernel, launch or API call of its own) is
        # hipified with the sources that include it: low effort, and not one more kernel to port
        # (verdict.SEVERAL_KERNELS; chamferdist's dispatch.cuh and index_utils.cuh, #22 blind round 11).
        return make_finding(
            signal,
            rule,
            f"CUDA code{summary}: on a ROCm torch, torch.utils.cpp_extension hipifies it at build; "
            "what hipify "
            "cannot map (inline PTX, warp-size assumptions, CUTLASS) is listed separately."
            + (" No kernel of its own: it is built with the sources that include it." if helpers else ""),
            "low" if host_only or helpers else "medium",
            "lower" if host_only else "moderate",
            "build on ROCm (hipify runs automatically); or port with hipify-clang",
            HIPIFY_SOURCE,
        )
    if "cpu-twin=1" in signal.detail and not host_only:
        return _cpu_twin(signal, target, summary)
    if CHECKED_LOAD in signal.detail and target.kind in ("xpu", "mps"):
        # `if torch.cuda.is_available(): gpu = load(...)` beside an unconditional CPU build of the same ops
        # (torch-encoding 1.2.1's encoding/lib/__init__.py, #22 blind round 149): built only where CUDA is;
        # elsewhere the project takes the path it wrote for that case, and the device tensors move to it.
        # A rule of its own: these kernels are one fast path the project skips, not ports that add up
        # (verdict.SEVERAL_KERNELS counts cuda-source and cuda-extension findings).
        return make_finding(
            signal,
            "cuda-kernel-checked-build",
            f"CUDA code built only behind a CUDA check{summary}: on {NAMES[target.kind]} it is "
            "skipped and the project's other path runs (its ops on CPU tensors, or plain torch).",
            "medium",
            "moderate",
            "move the op's inputs to the project's CPU path, or replace the op with torch ops; port the "
            "kernel for speed",
            DPCT_SOURCE if target.kind == "xpu" else MPS_SOURCE,
        )
    if HELPER_SOURCE in signal.detail and target.kind in ("xpu", "mps"):
        # No GPU work of its own beside the tree's kernels (across_files._helper_sources): those are judged
        # where they are; this file only has to stay out of the target's build.
        return make_finding(
            signal,
            rule,
            f"CUDA code{summary}: nothing in it runs on the GPU; on {NAMES[target.kind]} it only has to be "
            "left out of the build (the kernels beside it are judged on their own).",
            "low",
            "moderate",
            "leave the file out of the target's build, or guard what it reports",
            DPCT_SOURCE if target.kind == "xpu" else MPS_SOURCE,
        )
    if target.kind == "xpu":
        return make_finding(
            signal,
            rule,
            f"CUDA code{summary}: there is no CUDA compiler for Intel GPUs.",
            "high",
            "higher",
            "port to SYCL (SYCLomatic/dpct) and build with SyclExtension (torch >= 2.8)",
            DPCT_SOURCE,
        )
    if target.kind == "mps":
        return make_finding(
            signal,
            rule,
            f"CUDA code{summary}: nothing compiles CUDA for Apple GPUs.",
            "high",
            "higher",
            "express it in torch ops, or write a Metal kernel (torch.mps.compile_shader)",
            MPS_SOURCE,
        )
    return make_finding(
        signal,
        rule,
        f"CUDA code{summary}: needs a CPU implementation.",
        "high",
        "higher",
        "a CppExtension CPU path, or torch ops",
        SYCL_SOURCE,
    )


def _cpu_twin(signal: Signal, target: Target, summary: str) -> Finding:
    """CUDA kernels whose ops also have a CPU kernel (``cpu/x_cpu.cpp`` beside ``cuda/x_cuda.cu``, scan.py).

    Off NVIDIA/AMD the extension builds CPU-only (torch.utils.cpp_extension compiles the .cu files only with
    CUDA) and its ops run on CPU tensors: a device move around the call (or a torch-op swap), not a rewrite.
    """
    if target.kind == "cpu":
        return make_finding(
            signal,
            "cuda-kernel-cpu-twin",
            f"CUDA code{summary} with a CPU kernel for the same op: the CPU build runs it.",
            "none",
            "lower",
            "build the extension without CUDA (its CPU kernels)",
            SYCL_SOURCE,
        )
    name = NAMES[target.kind]
    return make_finding(
        signal,
        "cuda-kernel-cpu-twin",
        f"CUDA code{summary}: no {name} kernel, but the op has a CPU kernel (its cpu/ twin): {name} tensors "
        "must move to the CPU around the call (or the op swapped for a torch op, e.g. scatter_reduce).",
        "medium",
        "moderate",
        "move the op's inputs to the CPU, or replace it with torch ops; port to the target for speed",
        DPCT_SOURCE if target.kind == "xpu" else MPS_SOURCE,
    )


ROCM_LIBRARIES: Mapping[str, tuple[Effort, Risk, str]] = {
    "CUTLASS": ("high", "higher", "no ROCm port: Composable Kernel, hipBLASLt or Triton"),
    "CuTe": ("high", "higher", "no ROCm port: Composable Kernel or Triton"),
    "cuBLASLt": ("low", "lower", "hipBLASLt (hipify maps it)"),
    "cuBLAS": ("low", "lower", "hipBLAS / rocBLAS (hipify maps it)"),
    "cuDNN": ("medium", "moderate", "MIOpen (covers a subset of cuDNN's API)"),
    "cuFFT": ("low", "lower", "hipFFT"),
    "cuRAND": ("low", "lower", "hipRAND"),
    "cuSPARSE": ("low", "lower", "hipSPARSE"),
    "cuSOLVER": ("low", "lower", "hipSOLVER"),
    "NCCL": ("low", "lower", "RCCL (same API)"),
    "Thrust": ("low", "lower", "rocThrust"),
    "CUB": ("low", "lower", "hipCUB"),
    "WMMA (mma.h)": ("medium", "moderate", "rocWMMA"),
    "CUDA fp8 types": ("medium", "moderate", "HIP fp8 types (FNUZ variants on gfx942)"),
    "cooperative groups": ("low", "lower", "HIP cooperative groups"),
    "TensorRT": ("high", "higher", "none: MIGraphX from ONNX"),
    "cuDNN frontend": (
        "high",
        "higher",
        "none: MIOpen has no cudnn_frontend graph API; express the fused ops in torch or MIOpen's own API",
    ),
    "NVTX": ("low", "lower", "roctx ranges (rocprofiler-sdk) or no-op macros"),
    "cuFile (GPUDirect Storage)": ("medium", "moderate", "host I/O and copies; check hipFile on ROCm"),
}


def judge_library(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind == "cuda":
        return None
    if target.kind == "rocm":
        effort, risk, replacement = ROCM_LIBRARIES.get(
            signal.subject, ("medium", "moderate", "its HIP counterpart")
        )
        meaning = f"Uses {signal.subject}" + (": hipify has no mapping." if effort == "high" else ".")
        return make_finding(signal, "cuda-library", meaning, effort, risk, replacement, HIPIFY_SOURCE)
    if signal.subject == "TensorRT":
        return make_finding(
            signal,
            "cuda-library",
            "Uses TensorRT: NVIDIA only.",
            "high",
            "higher",
            "none: ONNX to the target's runtime",
            TRT_SOURCE,
        )
    return None  # part of the kernel rewrite counted on the file


def judge_ptx(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    specific = [
        v for k, v in (item.split("=", 1) for item in signal.detail if "=" in item) if k == "arch_specific"
    ]
    if target.kind == "cuda":
        if not specific:
            return None
        return make_finding(
            signal,
            "inline-ptx",
            f"Arch-specific PTX ({', '.join(specific)}) runs only on the GPU family it was written for.",
            "medium",
            "moderate",
            f"a path for {target.archs[0] if target.archs else 'the target'} (CUTLASS or plain CUDA)",
            "https://docs.nvidia.com/cuda/parallel-thread-execution/",
        )
    unbuilt = _triton_never_built(signal)
    if unbuilt is not None:
        return make_finding(
            signal,
            "inline-ptx",
            f"Inline PTX that Triton never compiles as shipped: {unbuilt}. Triton compiles a kernel for "
            f"the device it launches on, only the code that launch reaches, so {NAMES[target.kind]} never "
            "sees it.",
            "none",
            "lower",
            "nothing unless it is turned on (then a portable Triton path for the target)",
            TRITON_JIT_SOURCE,
        )
    if signal.subject == TRITON_ASM and OPTIONAL_MODULE in signal.detail:
        # Its module is imported only in a guard with a fallback (across_files._optional_modules): an
        # optional fast path; the launch fails on the target, so the caller's fallback must catch that too.
        return make_finding(
            signal,
            "inline-ptx",
            f"Inline PTX in a Triton kernel of an optional module (the project imports it only in a try "
            f"with a fallback): Triton fails to compile it for {NAMES[target.kind]} at launch, so that fast "
            "path is lost and the fallback must also catch the failed launch.",
            "medium",
            "moderate",
            "a portable Triton rounding (tl.extra libdevice rint) or the project's torch path on the target",
            TRITON_JIT_SOURCE,
        )
    return make_finding(
        signal,
        "inline-ptx",
        f"Inline PTX is NVIDIA's ISA: nothing translates it for {NAMES[target.kind]} (hipify leaves "
        "it as is, so the build fails).",
        "high",
        "higher",
        "rewrite with portable intrinsics (HIP: __builtin_amdgcn_*, rocWMMA) or fall back to a torch op",
        HIPIFY_SOURCE,
    )


TRITON_JIT_SOURCE = "https://triton-lang.org/main/python-api/generated/triton.jit.html"


def _triton_never_built(signal: Signal) -> str | None:
    """Why Triton inline asm is not compiled as shipped (#22 blind round 18, gemlite 0.6), or None.

    Triton compiles a ``@triton.jit`` function when a launched kernel reaches it, resolving ``tl.constexpr``
    arguments first and dropping the branches they rule out. Inline PTX under ``if <switch>:`` on a constexpr
    parameter that is off by default, or in a jit function nothing in the project names, is never built.
    C/C++ PTX is compiled by the build whatever runtime test surrounds it, so this is for Triton's alone.
    """
    if signal.subject != TRITON_ASM:
        return None
    names = [item[len(UNREFERENCED) :] for item in signal.detail if item.startswith(UNREFERENCED)]
    if names:
        return f"it is in the Triton function {names[0]}, which nothing in the project calls"
    if OPT_IN in signal.detail:
        return "it sits under a tl.constexpr switch that is off by default"
    return None


WARP_MASK_SOURCE = "https://github.com/ROCm/hip/issues/3667"


def judge_warp(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind != "rocm":
        return None  # on XPU/MPS/CPU the kernel is rewritten anyway (see the file's finding)
    archs = target.archs or ("gfx942",)
    wave64 = any(knowledge.wave64(gfx) for gfx in archs)
    named = ", ".join(target.archs) if target.archs else "CDNA (MI-series, the usual ROCm server target)"
    if signal.subject.startswith("__") and signal.subject.endswith("_sync"):
        # HIP 6.2 made the *_sync intrinsics check their mask type: a 32-bit mask does not compile,
        # on wave64 and on wave32 RDNA alike.
        return make_finding(
            signal,
            "warp-mask-32bit",
            "A 32-bit lane mask (0xffffffff) in a *_sync intrinsic: from HIP 6.2 on this is a compile "
            "error (the mask must be 64-bit), on every AMD GPU; on wave64 it would also cover half a "
            "wavefront.",
            "low",
            "higher",
            "a 64-bit mask (`__shfl_xor_sync(~0ull, ...)`, or `__activemask()`); size lanes by `warpSize`",
            WARP_MASK_SOURCE,
        )
    if wave64:
        return make_finding(
            signal,
            "warp-size-32",
            f"Assumes 32-lane warps; wavefronts are 64 lanes on {named}: reductions and lane indexing "
            "cover half of one — wrong results, no error.",
            "medium",
            "higher",
            "use `warpSize` (or a WAVEFRONT_SIZE macro per build), size shared buffers by it",
            knowledge.source("wavefront"),
        )
    return make_finding(
        signal,
        "warp-size-32",
        f"Assumes 32-lane warps; RDNA ({named}) runs wave32 by default, but the code breaks if "
        "built with -mwavefrontsize64.",
        "low",
        "moderate",
        "use `warpSize` instead of 32",
        knowledge.source("wavefront"),
    )


BLIND_SPOTS: Mapping[str, tuple[str, str, Effort, Risk, str, str]] = {
    # kind: (rule, meaning off NVIDIA, effort, risk on ROCm, replacement, source)
    "cache-hint": (
        "cuda-cache-hints",
        "CUDA cache-hinted loads/stores (__ldcs/__stcs/__stcg): HIP has no such intrinsics, so the "
        "build fails until they are defined.",
        "low",
        "moderate",
        "define them for HIP (`__builtin_nontemporal_load/store`, or plain loads), as llm.c's AMD port does",
        HIPIFY_SOURCE + "/blob/amd-staging/docs/reference/tables/CUDA_Device_API_supported_by_HIP.md",
    ),
    "nvtx": (
        "nvtx-ranges",
        "NVTX profiler ranges: NVIDIA's tools only.",
        "low",
        "lower",
        "roctx ranges (`roctxRangePush/Pop`, rocprofiler-sdk) or no-op macros",
        "https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/",
    ),
    "cufile": (
        "cufile-gds",
        "cuFile (GPUDirect Storage) reads files straight into NVIDIA GPU memory: no drop-in elsewhere.",
        "medium",
        "moderate",
        "read with host I/O and copy (`hipMemcpyAsync` / `tensor.to(device)`); on ROCm check hipFile",
        "https://docs.nvidia.com/gpudirect-storage/api-reference-guide/index.html",
    ),
    "cublaslt-layout": (
        "cublaslt-layout",
        "cuBLASLt IMMA tile layouts or descriptor attributes (COL32, COL4_4R2_8C, SCALE_TYPE ...) that "
        "HIPIFY's -examine reports unsupported in hipBLASLt.",
        "medium",
        "moderate",
        "plain column-major int8 GEMMs through hipBLASLt, or torch._int_mm",
        HIPIFY_SOURCE + "/blob/amd-staging/docs/reference/tables/CUBLAS_API_supported_by_HIP.md",
    ),
    "labeled-partition": (
        "cg-labeled-partition",
        "cooperative_groups::labeled_partition (a warp split by key, for grouped reductions): HIP's "
        "cooperative groups have tiled and coalesced groups but no labeled partition, so the kernel does "
        "not compile for AMD GPUs until the reduction is rewritten.",
        "medium",
        "higher",
        "per-thread atomics, or a hand-written segmented shuffle reduction sized by warpSize (what the "
        "gsplat AMD ports do)",
        "https://github.com/nerfstudio-project/gsplat/pull/798",
    ),
}


def judge_blind_spot(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """Cache hints, NVTX, cuFile, cuBLASLt layouts: one finding per file, with the count."""
    if target.kind == "cuda":
        return None
    rule, meaning, effort, risk, replacement, source = BLIND_SPOTS[signal.kind]
    if target.kind != "rocm":
        return None  # part of the CUDA code the file's finding already counts as a rewrite
    count = signal.facts().get("count", "1")
    return make_finding(signal, rule, f"{meaning} ({count} in this file)", effort, risk, replacement, source)


def judge_gencode(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    archs = [item.split("=", 1)[1] for item in signal.detail if item.startswith("arch=")]
    if target.kind == "rocm":
        return make_finding(
            signal,
            "cuda-arch-flags",
            f"NVIDIA arch flags ({', '.join(archs)}): ignored by a ROCm build.",
            "low",
            "lower",
            f"PYTORCH_ROCM_ARCH={';'.join(target.archs) or 'gfx942'}",
            HIPIFY_SOURCE,
        )
    if target.kind != "cuda" or not target.archs:
        return None
    wanted = compat.parse_arch(target.archs[0])
    if wanted is None:
        return None
    codes = [compat.parse_arch(a) for a in archs]
    device = Version(wanted[1])
    if any(c is not None and compat.sass_runs_on(c[1], device) for c in codes):
        return None
    return make_finding(
        signal,
        "cuda-arch-flags",
        f"Builds for {', '.join(archs)} only: no machine code for {target.archs[0]}.",
        "low",
        "moderate",
        f"add {target.archs[0]} (TORCH_CUDA_ARCH_LIST / -gencode arch=compute_XY,code=sm_XY)",
        "https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/#options-for-steering-gpu-code-generation",
    )


def judge_cmake(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind == "cuda":
        return None
    replacement = (
        "enable_language(HIP), find_package(hip), CMAKE_HIP_ARCHITECTURES"
        if target.kind == "rocm"
        else "a build without the CUDA language"
    )
    return make_finding(
        signal,
        "cmake-cuda",
        "The CMake build enables the CUDA language.",
        "medium",
        "moderate",
        replacement,
        HIPIFY_SOURCE,
    )


def judge_docker(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind == "cuda":
        return None
    images = {
        "rocm": "rocm/pytorch (or rocm/dev-ubuntu-*) as the base image",
        "xpu": (
            "an Intel GPU base image with the compute runtime (e.g. intel/oneapi-basekit) "
            "and torch from the XPU index"
        ),
        "mps": "no container: Docker on macOS has no GPU access; run natively",
        "cpu": "a plain Python base image (python:3.x-slim)",
    }
    # On the CPU and on Apple silicon the project runs natively (Docker Desktop on macOS passes no GPU
    # through): the image is left aside, not ported, so it is no blocker there (#22 blind round 6, rembg).
    native = target.kind in ("cpu", "mps")
    return make_finding(
        signal,
        "cuda-base-image",
        f"The image is built on NVIDIA's CUDA image ({signal.subject})"
        + ("; the project runs natively there, without it." if native else "."),
        "low",
        "lower" if native else "moderate",
        images[target.kind],
        DOCKER_SOURCE,
    )


ORT_PROVIDERS_SOURCE = "https://onnxruntime.ai/docs/execution-providers/"
_ORT_SWAPS = {
    "rocm": "MIGraphXExecutionProvider with onnxruntime-migraphx (the ROCm EP left ONNX Runtime in 1.23)",
    "xpu": "OpenVINOExecutionProvider (device_type GPU) with onnxruntime-openvino",
    "mps": "CoreMLExecutionProvider, in the default onnxruntime wheel for macOS",
    "cpu": "CPUExecutionProvider (what it falls back to already)",
}


def judge_ort_provider(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """``providers=["CUDAExecutionProvider", ...]``: ONNX Runtime's NVIDIA execution providers, named in code.

    A provider the installed build lacks is skipped with a warning and the session runs on the CPU EP, so
    off NVIDIA the model runs, on the CPU, until the list names the target's provider (rembg-like
    deployments take ``get_available_providers()`` instead and need no edit).
    """
    if target.kind == "cuda":
        return None
    facts = signal.facts()
    if "ort-build" in facts:
        # across_files._ort_builds: the project installs no ONNX Runtime with this provider.
        return make_finding(
            signal,
            "ort-cuda-provider",
            f"ONNX Runtime's {signal.subject} ships only in onnxruntime-gpu, and the project installs "
            f"{facts['ort-build']}: as installed its sessions take another provider on NVIDIA machines too, "
            f"so {NAMES[target.kind]} runs them as the source does.",
            "low",
            "lower",
            _ORT_SWAPS[target.kind],
            ORT_PROVIDERS_SOURCE,
        )
    if TORCH_FIRST in signal.detail and target.kind != "cpu":
        # scan._torch_first_sessions: a PyTorch project's ONNX sessions are its side engine.
        return make_finding(
            signal,
            "ort-cuda-provider",
            f"ONNX Runtime's {signal.subject} exists only in its NVIDIA builds, but this project's core is "
            f"PyTorch: its torch models run on {NAMES[target.kind]}, and only these ONNX sessions fall back "
            "to the CPU until the providers list names the target's provider.",
            "low",
            "lower",
            _ORT_SWAPS[target.kind],
            ORT_PROVIDERS_SOURCE,
        )
    chosen = signal.guarded and "ep-choices" in facts and target.kind != "cpu"
    if chosen and target.kind not in facts.get("ep-targets", "").split(","):
        # A provider chosen per accelerator (across_files._ort_choices): a closed set, like a device
        # selection that names 'cuda' and 'mps' and never the target's device.
        choices = ", ".join(["CUDA", *facts["ep-choices"].split(",")])
        return make_finding(
            signal,
            "ort-cuda-provider",
            f"The project picks ONNX Runtime's provider among {choices} and the CPU: on "
            f"{NAMES[target.kind]} its ONNX models run on the CPU until the choice names the target's "
            "provider.",
            "low",
            "moderate",
            _ORT_SWAPS[target.kind],
            ORT_PROVIDERS_SOURCE,
        )
    native = target.kind == "cpu" or signal.guarded
    return make_finding(
        signal,
        "ort-cuda-provider",
        f"ONNX Runtime's {signal.subject} exists only in its NVIDIA builds: on {NAMES[target.kind]} the "
        "session skips it (a warning) and runs on the CPU"
        + ("." if target.kind == "cpu" else ", until the providers list names the target's provider."),
        "low",
        "lower" if native else "moderate",
        _ORT_SWAPS[target.kind],
        ORT_PROVIDERS_SOURCE,
    )


CUPY_ROCM_SOURCE = "https://docs.cupy.dev/en/stable/install.html#using-cupy-on-amd-gpu-experimental"
CUPY_KERNEL_SOURCE = "https://docs.cupy.dev/en/stable/user_guide/kernel.html"


Said = tuple[str, Effort, str, str]
"""(meaning, effort, fix, source) of one finding."""


def _runtime_kernel(
    signal: Signal,
    target: Target,
    rule: str,
    on_rocm: Said,
    elsewhere: Said,
    rocm_risk: Risk = "moderate",
) -> Finding | None:
    """CUDA C++ compiled at run time: hiprtc compiles the dialect on ROCm (moderate: port the path and
    check the source, unless ``rocm_risk`` says the path itself is the port); nothing does for Intel or
    Apple GPUs (higher); one level lower when guarded."""
    if target.kind == "cuda":
        return None
    meaning, effort, fix, source = on_rocm if target.kind == "rocm" else elsewhere
    if OPTIONAL_MODULE in signal.detail:
        meaning += (
            " Its module is one the project loads only in a guard (try/except ImportError), or only from "
            "such a module: an optional fast path, the code runs without it."
        )
    risk: Risk = rocm_risk if target.kind == "rocm" else "higher"
    finding = make_finding(signal, rule, meaning, effort, risk, fix, source)
    if signal.guarded:
        return msgspec.structs.replace(finding, risk=LOWER_RISK[finding.risk])
    return finding


def judge_cupy_kernel(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """``cupy.RawKernel`` / ``ElementwiseKernel`` ...: CUDA C++ source CuPy compiles at run time.

    Array code has a NumPy or torch swap (the cupy row of alternatives.yaml); a user-defined kernel is
    CUDA C++: CuPy's ROCm build compiles it with hiprtc (CUDA-only intrinsics in it must be ported), and
    there is no CuPy for Intel or Apple GPUs, so there it is a rewrite, like Numba's @cuda.jit kernels.
    """
    return _runtime_kernel(
        signal,
        target,
        "cupy-kernel",
        (
            "A CuPy kernel in CUDA C++: CuPy's ROCm build compiles it with hiprtc, so what HIP lacks "
            "(inline PTX, 32-lane warp assumptions) must be ported.",
            "medium",
            "install CuPy for ROCm (cupy-rocm-*) and check the kernel source against HIP",
            CUPY_ROCM_SOURCE,
        ),
        (
            "A CuPy kernel in CUDA C++: no CuPy build for "
            f"{NAMES.get(target.kind, target.kind)} compiles it.",
            "high",
            "rewrite the kernel as torch ops on the target device (or NumPy on the CPU)",
            CUPY_KERNEL_SOURCE,
        ),
    )


XLA_CUSTOM_CALL_SOURCE = "https://docs.jax.dev/en/latest/ffi.html"


def judge_xla_custom_call(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """``register_custom_call_target(name, fn, platform="gpu")`` / ``jax.ffi.register_ffi_target(...,
    platform="CUDA")``: a native GPU kernel library handed to XLA (braintaichi 0.0.5's Taichi AOT kernels
    behind a CUDA-built ``gpu_ops``, #22 blind round 22). JAX's own ops follow its plugins, this library
    does not: on ROCm it must be rebuilt as HIP and registered for the ROCM platform; Intel's OpenXLA plugin
    and jax-metal run no CUDA custom call, so there the kernels are rewritten for the target (or the CPU
    custom calls are used). A registration inside ``try: ... except ImportError`` is still the GPU path
    (the library is optional, not replaced), so the guard does not lower it.
    """
    if target.kind in ("cuda", "cpu"):
        return None
    if target.kind == "rocm":
        return make_finding(
            signal,
            "xla-custom-call",
            "A compiled XLA custom call for the CUDA GPU platform: JAX's ROCm plugin runs it only once the "
            "kernel library is rebuilt as HIP and registered for ROCM.",
            "medium",
            "moderate",
            "rebuild the custom-call library with HIP (hipify its CUDA source) for platform='ROCM'",
            XLA_CUSTOM_CALL_SOURCE,
        )
    return make_finding(
        signal,
        "xla-custom-call",
        "A compiled XLA custom call for the CUDA GPU platform: JAX on "
        f"{NAMES.get(target.kind, target.kind)} has no way to run a CUDA kernel library.",
        "high",
        "higher",
        "rewrite the custom call's kernels for the target (or use the CPU custom calls)",
        XLA_CUSTOM_CALL_SOURCE,
    )


NVRTC_SOURCE = "https://docs.nvidia.com/cuda/nvrtc/index.html"
HIPRTC_SOURCE = "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_rtc.html"


def judge_kernel_string(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """CUDA C++ kernel source held in a Python string (``extern "C" __global__ void ...``), generated and
    compiled at run time (NVRTC or nvcc) by the project itself, not by CuPy (KeOps 2.3's map-reduce
    generators, #22 blind round 10). HIP's hiprtc compiles the same dialect, so on ROCm it is a port of the
    compile-and-launch path and a check of the source; nothing compiles it for Intel or Apple GPUs.

    In the CUDA class of a code generator that has a class for the target's backend too (tinygrad's
    CUDARenderer beside HIPRenderer, MetalRenderer, OpenCLRenderer; #22 blind round 15) the string is only
    what the CUDA backend emits: the sibling generates the target's kernels, so nothing here is to port.
    """
    facts = signal.facts()
    if (
        target.kind != "cuda"
        and facts.get("member") == "cuda"
        and target.kind in facts.get("siblings", "").split(",")
    ):
        return make_finding(
            signal,
            "cuda-kernel-string",
            "CUDA C++ kernel source emitted by the CUDA member of a per-backend code generator: the module "
            f"has a {NAMES[target.kind]} member too, which generates the kernels there.",
            "none",
            "lower",
            f"select the project's {NAMES[target.kind]} backend",
            NVRTC_SOURCE,
        )
    if OWN_COMPILER in signal.detail:
        on_rocm: Said = (
            "CUDA C++ kernel source compiled at run time by the project's own NVRTC, nvcc or driver-API "
            "path (not CuPy's or torch's, which have ROCm builds): there is no HIP path to switch to; the "
            "compiler, the launches and the kernels (32-lane warps, PTX, CUDA-only headers) are a port.",
            "high",
            "write the HIP backend: hiprtc or hipcc for the compile, HIP for the launches (hipify maps both)",
            HIPRTC_SOURCE,
        )
        rocm_risk: Risk = "higher"
    else:
        on_rocm = (
            "CUDA C++ kernel source generated in Python and compiled at run time: hiprtc compiles the same "
            "dialect, but the compile-and-launch path (NVRTC, the driver API) must be ported to hiprtc/HIP "
            "and what HIP lacks (32-lane warp assumptions, PTX) checked in the source.",
            "medium",
            "port the runtime compiler to hiprtc and the launches to HIP (hipify maps both)",
            HIPRTC_SOURCE,
        )
        rocm_risk = "moderate"
    return _runtime_kernel(
        signal,
        target,
        "cuda-kernel-string",
        on_rocm,
        (
            "CUDA C++ kernel source generated in Python and compiled at run time: nothing compiles CUDA for "
            f"{NAMES.get(target.kind, target.kind)}.",
            "high",
            "generate the kernels in the target's language (SYCL, Metal) or express them in torch ops",
            NVRTC_SOURCE,
        ),
        rocm_risk,
    )


METAL_SOURCE = "https://developer.apple.com/metal/Metal-Shading-Language-Specification.pdf"


def judge_metal_kernel(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    """Metal shaders that are the project's only GPU kernels (scan._metal_kernels): no build off Apple."""
    facts = signal.facts()
    if target.kind in ("mps", "cpu") or target.kind in facts.get("ported", "").split(","):
        return None
    kernels = (
        f"Metal shaders ({facts.get('shaders', '1')} .metal files) are the project's only GPU kernels: Metal "
        f"compiles for Apple GPUs only, so on {NAMES[target.kind]} they have no build"
    )
    bound = facts.get("apple-device")
    if bound is not None:
        return make_finding(
            signal,
            "metal-kernel",
            f"{kernels}, and the project's own code binds the 'mps' device ({bound}): its GPU path is"
            " Apple's.",
            "high",
            "higher",
            "port the kernels (HIP, SYCL or Triton) or run the project's PyTorch path on the target's device",
            METAL_SOURCE,
        )
    # Ops that take the caller's tensors (mps-pointops 1.0.0, round 314) may run a torch version elsewhere:
    # what runs there, and how fast, is the project's fallback, which the shaders do not show.
    return make_finding(
        signal,
        "metal-kernel",
        f"{kernels}; the project binds no device of its own, so its ops get the caller's tensors: check that"
        " they fall back to torch off Apple (slower), or port the kernels.",
        "medium",
        "moderate",
        "the project's torch path on the target's device (check it exists), or a port of the kernels",
        METAL_SOURCE,
    )
