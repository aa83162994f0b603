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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from envsnap.audit import knowledge
from envsnap.audit.model import Effort, Finding, Risk, Signal, Target
from envsnap.rules import compat
from envsnap.snapshot.redact import redact_text

HIP_SOURCE = "https://docs.pytorch.org/docs/stable/notes/hip.html"
ACCEL_SOURCE = "https://docs.pytorch.org/docs/stable/accelerator.html"
AMP_SOURCE = "https://docs.pytorch.org/docs/stable/amp.html"
DIST_SOURCE = "https://docs.pytorch.org/docs/stable/distributed.html#backends"
HIPIFY_SOURCE = "https://github.com/ROCm/HIPIFY"
SYCL_SOURCE = (
    "https://docs.pytorch.org/docs/stable/cpp_extension.html#torch.utils.cpp_extension.SyclExtension"
)
DPCT_SOURCE = "https://github.com/oneapi-src/SYCLomatic"
MPS_SOURCE = "https://docs.pytorch.org/docs/stable/notes/mps.html"
TRT_SOURCE = "https://docs.nvidia.com/deeplearning/tensorrt/latest/getting-started/support-matrix.html"
ORT_SOURCE = "https://onnxruntime.ai/docs/execution-providers/"
GGUF_SOURCE = "https://github.com/ggml-org/llama.cpp#supported-backends"
SERIALIZATION_SOURCE = "https://docs.pytorch.org/docs/stable/generated/torch.load.html"
JIT_SOURCE = "https://docs.pytorch.org/docs/stable/generated/torch.jit.load.html"
WAVE_SOURCE = "https://rocm.docs.amd.com/projects/HIP/en/latest/understand/programming_model.html"
DOCKER_SOURCE = "https://hub.docker.com/r/rocm/pytorch"

NAMES = {"cuda": "NVIDIA CUDA", "rocm": "ROCm", "xpu": "Intel XPU", "mps": "Apple MPS", "cpu": "CPU"}
DEVICE = {"xpu": "torch.device('xpu')", "mps": "torch.device('mps')", "cpu": "torch.device('cpu')"}
ACCELERATOR = (
    "choose the device once, `device = torch.accelerator.current_accelerator() or torch.device('cpu')`, "
    "and move with `.to(device)`"
)
LOWER_RISK: Mapping[Risk, Risk] = {"higher": "moderate", "moderate": "lower", "lower": "lower"}


@dataclass(frozen=True)
class Context:
    """What the judge may know about the source environment (installed versions by PEP 503 name)."""

    installed: Mapping[str, str] = field(default_factory=dict)


def cuda_api_works(target: Target) -> bool:
    """Whether ``torch.cuda`` (and ``.cuda()``, ``device="cuda"``) is the target's own device API."""
    return target.kind in ("cuda", "rocm")


def where(signal: Signal) -> str:
    """``file:line`` (or the file, or the subject for environment signals)."""
    if signal.file is None:
        return signal.subject
    return f"{signal.file}:{signal.line}" if signal.line else signal.file


def _finding(
    signal: Signal, rule: str, meaning: str, effort: Effort, risk: Risk, replacement: str, source: str | None
) -> Finding:
    return Finding(
        rule=rule,
        layer=signal.layer,
        location=where(signal),
        code=redact_text(signal.code),  # a line of the project may hold a token next to the hit
        meaning=meaning,
        effort=effort,
        risk=risk,
        replacement=replacement,
        source=source,
    )


Judge = Callable[[Signal, Target, Context], "Finding | None"]


# ---------------------------------------------------------------------------- device plumbing


def _device_hardcode(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    rule = "hardcoded-cuda-device"
    if target.kind == "cuda":
        return None
    if target.kind == "rocm":
        return _finding(
            signal,
            rule,
            "Works unchanged: ROCm builds of PyTorch expose AMD GPUs as the 'cuda' device.",
            "none",
            "lower",
            "",
            HIP_SOURCE,
        )
    if signal.guarded:
        if target.kind == "cpu":
            return _finding(
                signal,
                rule,
                "Behind a guard: runs on the CPU as intended.",
                "none",
                "lower",
                "",
                ACCEL_SOURCE,
            )
        return _finding(
            signal,
            rule,
            f"Behind a CUDA check: runs, but falls through to the CPU on {NAMES[target.kind]}, so the "
            "accelerator sits idle.",
            "low",
            "lower",
            ACCELERATOR,
            ACCEL_SOURCE,
        )
    return _finding(
        signal,
        rule,
        f"Fails at this line on {NAMES[target.kind]}: the build has no 'cuda' device "
        '("Torch not compiled with CUDA enabled").',
        "low",
        "higher",
        ACCELERATOR,
        ACCEL_SOURCE,
    )


def _cuda_guard(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind in ("cuda", "rocm", "cpu"):
        return None
    return _finding(
        signal,
        "cuda-availability-check",
        f"Returns False on {NAMES[target.kind]}: the code takes its CPU branch.",
        "low",
        "lower",
        "`torch.accelerator.is_available()` (any accelerator)",
        ACCEL_SOURCE,
    )


STREAMS = frozenset(
    {
        "Stream",
        "stream",
        "current_stream",
        "default_stream",
        "set_stream",
        "Event",
        "synchronize",
        "ExternalStream",
        "StreamContext",
    }
)
GRAPHS = frozenset({"CUDAGraph", "graph", "make_graphed_callables", "graph_pool_handle"})
PROPERTIES = frozenset({"get_device_properties", "get_device_capability", "get_device_name", "get_arch_list"})
MPS_HAS = frozenset(
    {
        "synchronize",
        "empty_cache",
        "manual_seed",
        "Event",
        "current_allocated_memory",
        "driver_allocated_memory",
        "set_per_process_memory_fraction",
    }
)


def _cuda_api(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    rule = "torch-cuda-api"
    member = signal.subject.split(".")[-1]
    if target.kind == "cuda":
        return None
    if target.kind == "rocm":
        if member in PROPERTIES:
            return _finding(
                signal,
                rule,
                "Works, but on ROCm it describes the AMD GPU: get_device_capability() returns the gfx "
                "version (e.g. (9, 4) on gfx942), so branches on NVIDIA compute capability take the "
                "wrong path.",
                "low",
                "lower",
                "branch on features (`torch.cuda.is_bf16_supported()`), not on the capability number",
                HIP_SOURCE,
            )
        return _finding(
            signal, rule, "Works unchanged on ROCm (HIP behind torch.cuda).", "none", "lower", "", HIP_SOURCE
        )
    risk: Risk = "lower" if signal.guarded else "higher"
    fails = "behind a guard, skipped" if signal.guarded else "raises"
    if target.kind == "cpu":
        return _finding(
            signal,
            rule,
            f"No CUDA on a CPU build: this call {fails}.",
            "low",
            risk,
            "drop it on CPU, or use `torch.accelerator` calls that no-op without an accelerator",
            ACCEL_SOURCE,
        )
    if target.kind == "mps":
        if member in GRAPHS or (member in STREAMS and member not in MPS_HAS):
            return _finding(
                signal,
                rule,
                f"MPS has no CUDA streams or graphs: this call {fails}; the capture must go.",
                "medium",
                risk,
                "run eagerly; `torch.mps.synchronize()` where a sync is needed",
                MPS_SOURCE,
            )
        replacement = (
            f"`torch.mps.{member}`"
            if member in MPS_HAS
            else "the `torch.accelerator` / `torch.mps` equivalent"
        )
        return _finding(
            signal, rule, f"A CUDA-only call: it {fails} on MPS.", "low", risk, replacement, MPS_SOURCE
        )
    if member in GRAPHS:
        return _finding(
            signal,
            rule,
            f"CUDA graph capture {fails} on XPU.",
            "medium",
            risk,
            "`torch.xpu.XPUGraph` on recent releases, or run eagerly / torch.compile",
            ACCEL_SOURCE,
        )
    return _finding(
        signal,
        rule,
        f"A CUDA-only call: it {fails} on XPU.",
        "low",
        risk,
        f"`torch.xpu.{member}` or `torch.accelerator`",
        ACCEL_SOURCE,
    )


def _cudnn(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    rule = "cudnn-setting"
    if target.kind == "cuda":
        return None
    if target.kind == "rocm":
        return _finding(
            signal,
            rule,
            "Honoured through MIOpen (benchmark → MIOpen find mode, deterministic → deterministic kernels).",
            "none",
            "lower",
            "",
            HIP_SOURCE,
        )
    return _finding(
        signal,
        rule,
        f"No effect on {NAMES[target.kind]}: cuDNN settings are ignored, so determinism set here is "
        "not enforced.",
        "low",
        "lower",
        "`torch.use_deterministic_algorithms(True)`; drop the cuDNN flags",
        ACCEL_SOURCE,
    )


def _cuda_amp(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    rule = "cuda-amp"
    if cuda_api_works(target):
        return _finding(
            signal,
            rule,
            "Deprecated (FutureWarning since torch 2.4) but works.",
            "low",
            "lower",
            "`torch.amp.autocast('cuda')`, `torch.amp.GradScaler('cuda')`",
            AMP_SOURCE,
        )
    return _finding(
        signal,
        rule,
        'Autocast is silently disabled off CUDA ("CUDA is not available. Disabling"): on '
        f"{NAMES[target.kind]} "
        "the model runs in float32, with other memory use and speed.",
        "low",
        "moderate",
        f"`torch.amp.autocast(device_type='{target.kind}', dtype=torch.bfloat16)`",
        AMP_SOURCE,
    )


def _nccl(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    rule = "nccl-backend"
    if target.kind == "cuda":
        return None
    if target.kind == "rocm":
        return _finding(
            signal, rule, "RCCL serves the 'nccl' backend on ROCm.", "none", "lower", "", HIP_SOURCE
        )
    backend = "xccl" if target.kind == "xpu" else "gloo"
    return _finding(
        signal,
        rule,
        f"No NCCL on {NAMES[target.kind]}: init_process_group fails with the 'nccl' backend.",
        "low",
        "lower" if signal.guarded else "higher",
        f"backend='{backend}'"
        + (" (torch >= 2.8)" if backend == "xccl" else "")
        + ", or omit it for the device's default",
        DIST_SOURCE,
    )


def _float64(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind == "mps":
        note = knowledge.dtype_note("float64", "mps")
        return _finding(
            signal,
            "float64-on-mps",
            f"{note.note if note else 'No float64 on MPS'}: fails if this tensor lives on the MPS device.",
            "low",
            "moderate",
            "float32 on the device; keep float64 math on the CPU",
            note.source if note else MPS_SOURCE,
        )
    if target.kind == "xpu" and not (target.archs and target.archs[0] == "pvc"):
        note = knowledge.dtype_note("float64", "xpu")
        return _finding(
            signal,
            "float64-on-xpu",
            note.note if note else "fp64 is limited on client XPUs.",
            "low",
            "lower",
            "float32 where the precision allows",
            note.source if note else ACCEL_SOURCE,
        )
    return None


def _agnostic(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    return _finding(
        signal,
        "device-agnostic",
        "Device-agnostic code: follows whatever accelerator the target has.",
        "none",
        "lower",
        "",
        ACCEL_SOURCE,
    )


# ---------------------------------------------------------------------------- packages


def package_finding(
    signal: Signal, target: Target, ctx: Context, rule: str, version: str | None = None
) -> Finding | None:
    """A CUDA-only package (imported, required or installed) judged for the target."""
    key = signal.facts().get("package", "")
    if key == "cuda-library-wheel":
        if target.kind == "cuda":
            return None
        _, source = knowledge.cuda_library_wheels()
        return _finding(
            signal,
            rule,
            "An NVIDIA CUDA library wheel: the target's torch build brings its own runtime libraries.",
            "low",
            "lower",
            "drop it from the requirements",
            source,
        )
    row = next((r for r in knowledge.alternatives() if r.key == key), None)
    if row is None or target.kind == "cuda":
        return None
    swap = row.swap(target.kind)
    if swap is None:
        return None
    effort, risk, replacement = swap.effort, swap.risk, swap.replacement
    minimum = (row.min_version or {}).get(target.kind)
    installed = version or signal.facts().get("pinned") or ctx.installed.get(row.key)
    meaning = f"{row.what}: CUDA-only as used here."
    if minimum and installed:
        if _at_least(installed, minimum):
            meaning = f"{row.what}: supports {NAMES[target.kind]} from {minimum}; {installed} is installed."
        else:
            meaning = f"{row.what}: {installed} predates {NAMES[target.kind]} support (from {minimum})."
            risk = "moderate" if risk == "lower" else risk
    elif swap.effort == "high":
        meaning = f"{row.what}: no build for {NAMES[target.kind]} exists."
    if signal.guarded and signal.kind == "import":
        risk = LOWER_RISK[risk]
        meaning += " The import is guarded (try/except): the code has a path without it."
    return _finding(signal, rule, meaning, effort, risk, replacement, swap.source)


def _at_least(installed: str, minimum: str) -> bool:
    try:
        return Version(installed) >= Version(minimum)
    except InvalidVersion:
        return False


def _import(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    return package_finding(signal, target, ctx, "cuda-only-import")


def _requirement(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    return package_finding(signal, target, ctx, "cuda-only-requirement")


def _apex_pip(signal: Signal, target: Target, ctx: Context) -> Finding:
    _, source = knowledge.apex_trap()
    fork = "ROCm/apex" if target.kind == "rocm" else "NVIDIA/apex"
    return _finding(
        signal,
        "pip-install-apex",
        "`pip install apex` installs an unrelated PyPI package of that name, not NVIDIA Apex.",
        "low",
        "moderate",
        f"build {fork} from source (`pip install --no-build-isolation git+https://github.com/{fork}`)",
        source,
    )


def _extra_index(signal: Signal, target: Target, ctx: Context) -> Finding:
    return _finding(
        signal,
        "extra-index-url",
        "With --extra-index-url pip may pick the newer CUDA wheel from PyPI instead of the one on "
        "this index.",
        "low",
        "moderate",
        "`--index-url` (the PyTorch index only) for torch and its companions",
        knowledge.source("extra_index_trap"),
    )


def _cuda_index(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind == "cuda":
        return None
    return _finding(
        signal,
        "cuda-wheel-index",
        f"Installs the {signal.subject} (CUDA) builds of torch.",
        "low",
        "moderate",
        f"the {NAMES[target.kind]} index (see the framework finding for the exact command)",
        knowledge.source("cuda"),
    )


# ---------------------------------------------------------------------------- compiled code


def _compiled(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    rule = "cuda-extension" if signal.kind == "cuda-extension" else "cuda-source"
    counts = signal.facts()
    summary = ""
    if "kernels" in counts:
        summary = (
            f" ({counts.get('kernels', '0')} kernels, {counts.get('launches', '0')} launches, "
            f"{counts.get('runtime_calls', '0')} CUDA API calls)"
        )
    host_only = signal.subject == "CUDA host code"
    if target.kind == "cuda":
        if signal.kind != "cuda-extension":
            return None
        arch = target.archs[0] if target.archs else "the target arch"
        return _finding(
            signal,
            rule,
            f"Compiled for the archs it is built with: rebuild so {arch} is among them.",
            "low",
            "lower",
            f"build on the target, or add it to TORCH_CUDA_ARCH_LIST ({arch})",
            HIPIFY_SOURCE,
        )
    if target.kind == "rocm":
        return _finding(
            signal,
            rule,
            f"CUDA code{summary}: on a ROCm torch, torch.utils.cpp_extension hipifies it at build; "
            "what hipify "
            "cannot map (inline PTX, warp-size assumptions, CUTLASS) is listed separately.",
            "low" if host_only else "medium",
            "lower" if host_only else "moderate",
            "build on ROCm (hipify runs automatically); or port with hipify-clang",
            HIPIFY_SOURCE,
        )
    if target.kind == "xpu":
        return _finding(
            signal,
            rule,
            f"CUDA code{summary}: there is no CUDA compiler for Intel GPUs.",
            "high",
            "higher",
            "port to SYCL (SYCLomatic/dpct) and build with SyclExtension (torch >= 2.8)",
            DPCT_SOURCE,
        )
    if target.kind == "mps":
        return _finding(
            signal,
            rule,
            f"CUDA code{summary}: nothing compiles CUDA for Apple GPUs.",
            "high",
            "higher",
            "express it in torch ops, or write a Metal kernel (torch.mps.compile_shader)",
            MPS_SOURCE,
        )
    return _finding(
        signal,
        rule,
        f"CUDA code{summary}: needs a CPU implementation.",
        "high",
        "higher",
        "a CppExtension CPU path, or torch ops",
        SYCL_SOURCE,
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
}


def _library(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind == "cuda":
        return None
    if target.kind == "rocm":
        effort, risk, replacement = ROCM_LIBRARIES.get(
            signal.subject, ("medium", "moderate", "its HIP counterpart")
        )
        meaning = f"Uses {signal.subject}" + (": hipify has no mapping." if effort == "high" else ".")
        return _finding(signal, "cuda-library", meaning, effort, risk, replacement, HIPIFY_SOURCE)
    if signal.subject == "TensorRT":
        return _finding(
            signal,
            "cuda-library",
            "Uses TensorRT: NVIDIA only.",
            "high",
            "higher",
            "none: ONNX to the target's runtime",
            TRT_SOURCE,
        )
    return None  # part of the kernel rewrite counted on the file


def _ptx(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    specific = [
        v for k, v in (item.split("=", 1) for item in signal.detail if "=" in item) if k == "arch_specific"
    ]
    if target.kind == "cuda":
        if not specific:
            return None
        return _finding(
            signal,
            "inline-ptx",
            f"Arch-specific PTX ({', '.join(specific)}) runs only on the GPU family it was written for.",
            "medium",
            "moderate",
            f"a path for {target.archs[0] if target.archs else 'the target'} (CUTLASS or plain CUDA)",
            "https://docs.nvidia.com/cuda/parallel-thread-execution/",
        )
    return _finding(
        signal,
        "inline-ptx",
        f"Inline PTX is NVIDIA's ISA: nothing translates it for {NAMES[target.kind]} (hipify leaves "
        "it as is, so the build fails).",
        "high",
        "higher",
        "rewrite with portable intrinsics (HIP: __builtin_amdgcn_*, rocWMMA) or fall back to a torch op",
        HIPIFY_SOURCE,
    )


def _warp(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind != "rocm":
        return None  # on XPU/MPS/CPU the kernel is rewritten anyway (see the file's finding)
    archs = target.archs or ("gfx942",)
    wave64 = any(knowledge.wave64(gfx) for gfx in archs)
    named = ", ".join(target.archs) if target.archs else "CDNA (MI-series, the usual ROCm server target)"
    if wave64:
        return _finding(
            signal,
            "warp-size-32",
            f"Assumes 32-lane warps; wavefronts are 64 lanes on {named}: the mask covers half of "
            "one — wrong results, no error.",
            "medium",
            "higher",
            "use `warpSize` and 64-bit lane masks (`__shfl_sync(~0ull, ...)`), size shared buffers "
            "by warpSize",
            knowledge.source("wavefront"),
        )
    return _finding(
        signal,
        "warp-size-32",
        f"Assumes 32-lane warps; RDNA ({named}) runs wave32 by default, but the code breaks if "
        "built with -mwavefrontsize64.",
        "low",
        "moderate",
        "use `warpSize` instead of 32",
        knowledge.source("wavefront"),
    )


def _gencode(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    archs = [item.split("=", 1)[1] for item in signal.detail if item.startswith("arch=")]
    if target.kind == "rocm":
        return _finding(
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
    return _finding(
        signal,
        "cuda-arch-flags",
        f"Builds for {', '.join(archs)} only: no machine code for {target.archs[0]}.",
        "low",
        "moderate",
        f"add {target.archs[0]} (TORCH_CUDA_ARCH_LIST / -gencode arch=compute_XY,code=sm_XY)",
        "https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/#options-for-steering-gpu-code-generation",
    )


def _cmake(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    if target.kind == "cuda":
        return None
    replacement = (
        "enable_language(HIP), find_package(hip), CMAKE_HIP_ARCHITECTURES"
        if target.kind == "rocm"
        else "a build without the CUDA language"
    )
    return _finding(
        signal,
        "cmake-cuda",
        "The CMake build enables the CUDA language.",
        "medium",
        "moderate",
        replacement,
        HIPIFY_SOURCE,
    )


def _docker(signal: Signal, target: Target, ctx: Context) -> Finding | None:
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
    return _finding(
        signal,
        "cuda-base-image",
        f"The image is built on NVIDIA's CUDA image ({signal.subject}).",
        "low",
        "moderate" if target.kind != "cpu" else "lower",
        images[target.kind],
        DOCKER_SOURCE,
    )


# ---------------------------------------------------------------------------- artifacts


def _artifact(signal: Signal, target: Target, ctx: Context) -> Finding | None:
    facts = signal.facts()
    kind = signal.subject
    if kind == "tensorrt-engine":
        if target.kind == "cuda":
            return _finding(
                signal,
                "tensorrt-engine",
                "A TensorRT engine is compiled for one GPU and TensorRT release: it does not load "
                "on another architecture.",
                "medium",
                "moderate",
                f"rebuild the engine on {target.archs[0] if target.archs else 'the target'} from "
                "the ONNX model",
                TRT_SOURCE,
            )
        return _finding(
            signal,
            "tensorrt-engine",
            f"A TensorRT engine is NVIDIA machine code: no runtime for it exists on {NAMES[target.kind]}.",
            "high",
            "higher",
            "export the source model to ONNX and compile for the target (MIGraphX / OpenVINO / Core ML)",
            TRT_SOURCE,
        )
    pinned = facts.get("cuda_locations")
    if kind == "torchscript":
        if not pinned or cuda_api_works(target):
            return _finding(
                signal,
                "torchscript",
                "TorchScript archive: loads on the target.",
                "none",
                "lower",
                "",
                JIT_SOURCE,
            )
        return _finding(
            signal,
            "torchscript-cuda-pinned",
            f"TorchScript archive with CUDA devices in its code or constants ({pinned}): "
            "map_location moves the "
            "weights, but device constants traced into the code stay 'cuda' and fail on "
            f"{NAMES[target.kind]}.",
            "medium",
            "moderate",
            "re-export on the target (torch.export or re-trace with the target device)",
            JIT_SOURCE,
        )
    if kind == "torch-checkpoint":
        if not pinned or cuda_api_works(target):
            return _finding(
                signal,
                "checkpoint",
                "A torch checkpoint: loads on the target.",
                "none",
                "lower",
                "",
                SERIALIZATION_SOURCE,
            )
        return _finding(
            signal,
            "checkpoint-cuda-storage",
            f"Saved from CUDA tensors ({pinned}): torch.load without map_location fails on "
            f"{NAMES[target.kind]}.",
            "low",
            "lower",
            f"`torch.load(path, map_location='{target.kind}', weights_only=True)`",
            SERIALIZATION_SOURCE,
        )
    if kind == "safetensors":
        return _safetensors(signal, target, facts.get("dtypes", ""))
    if kind == "onnx":
        return _onnx(signal, target, facts)
    if kind == "gguf":
        backends = {"cuda": "CUDA", "rocm": "HIP", "xpu": "SYCL", "mps": "Metal", "cpu": "CPU"}
        return _finding(
            signal,
            "gguf",
            f"GGUF ({facts.get('architecture', 'model')}): portable; needs a llama.cpp built with "
            f"its {backends[target.kind]} backend.",
            "none",
            "lower",
            "",
            GGUF_SOURCE,
        )
    return None


def _safetensors(signal: Signal, target: Target, dtypes: str) -> Finding:
    present = set(dtypes.split(",")) if dtypes else set()
    notes: list[tuple[Effort, Risk, str, str]] = []
    if "F64" in present:
        note = knowledge.dtype_note("float64", target.kind)
        if note and note.support == "no":
            notes.append(("low", "moderate", f"F64 tensors: {note.note}", note.source))
    if any(d.startswith("F8") for d in present):
        note = knowledge.dtype_note("float8", target.kind)
        if note:
            risk: Risk = "higher" if note.support == "no" else "moderate"
            notes.append(
                (
                    "medium" if note.support == "no" else "low",
                    risk,
                    f"float8 tensors: {note.note}",
                    note.source,
                )
            )
    if "BF16" in present:
        note = knowledge.dtype_note("bfloat16", target.kind)
        if note:
            notes.append(("none", "lower", f"BF16 tensors: {note.note}", note.source))
    if not notes:
        return _finding(
            signal,
            "safetensors",
            f"safetensors ({dtypes or 'no tensors'}): loads on every target.",
            "none",
            "lower",
            "",
            "https://huggingface.co/docs/safetensors/",
        )
    effort, risk, meaning, source = max(
        notes, key=lambda n: (("lower", "moderate", "higher").index(n[1]), n[0])
    )
    replacement = (
        "convert the weights at load (`tensor.to(torch.bfloat16)` / float32)" if risk != "lower" else ""
    )
    return _finding(
        signal, "safetensors-dtype", f"safetensors ({dtypes}): {meaning}", effort, risk, replacement, source
    )


def _onnx(signal: Signal, target: Target, facts: Mapping[str, str]) -> Finding:
    runtime = {
        "cuda": "onnxruntime-gpu (CUDA EP)",
        "rocm": "onnxruntime-migraphx (MIGraphX EP)",
        "xpu": "onnxruntime-openvino (OpenVINO EP)",
        "mps": "onnxruntime (CoreML EP)",
        "cpu": "onnxruntime (CPU EP)",
    }[target.kind]
    custom = [d for d in facts.get("custom_domains", "").split(",") if d]
    opset = facts.get("opset", "?")
    foreign = [d for d in custom if d != "com.microsoft"]
    if foreign:
        return _finding(
            signal,
            "onnx-custom-ops",
            f"ONNX opset {opset} with custom ops ({facts.get('custom_ops', '')}) in domain(s) "
            f"{', '.join(foreign)}: "
            "they need their plugin on the target runtime.",
            "high",
            "higher",
            f"replace the custom ops with standard ONNX ops, then run with {runtime}",
            ORT_SOURCE,
        )
    if custom:
        return _finding(
            signal,
            "onnx-contrib-ops",
            f"ONNX opset {opset} with ONNX Runtime contrib ops (com.microsoft): not every execution provider "
            "implements them; the rest run on the CPU.",
            "low",
            "moderate",
            f"run with {runtime} and check which nodes fall back",
            ORT_SOURCE,
        )
    return _finding(
        signal,
        "onnx",
        f"ONNX opset {opset}, standard ops only: portable.",
        "none",
        "lower",
        f"run with {runtime}",
        ORT_SOURCE,
    )


JUDGES: Mapping[str, Judge] = {
    "device-hardcode": _device_hardcode,
    "cuda-guard": _cuda_guard,
    "cuda-api": _cuda_api,
    "cudnn-flag": _cudnn,
    "cuda-amp": _cuda_amp,
    "nccl-backend": _nccl,
    "float64": _float64,
    "device-agnostic": _agnostic,
    "import": _import,
    "requirement": _requirement,
    "apex-pip": _apex_pip,
    "extra-index-url": _extra_index,
    "cuda-index": _cuda_index,
    "cuda-extension": _compiled,
    "cuda-source": _compiled,
    "cuda-library": _library,
    "inline-ptx": _ptx,
    "warp32-mask": _warp,
    "gencode": _gencode,
    "cmake-cuda": _cmake,
    "docker-cuda-base": _docker,
    "artifact": _artifact,
}
"""Every signal kind the scanners emit, and its judge."""


def judge(signal: Signal, target: Target, ctx: Context | None = None) -> Finding | None:
    """The finding a signal makes on ``target``, or None when it means nothing there."""
    handler = JUDGES.get(signal.kind)
    return handler(signal, target, ctx or Context()) if handler else None
