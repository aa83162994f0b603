"""Already supported on the target? The project's own port, and what it covers.

Scanners emit ``port`` signals: a backend folder (``hip/``, ``xpu/``, ``metal/``), a ROCm
preprocessor branch, HIP/SYCL API calls, a build switch (``enable_language(HIP)``, ``GGML_HIP``,
``is_rocm_pytorch()``), a dispatch table or comparison that names the device. When core code carries
such evidence for the target, the project has been ported: its CUDA sources are the CUDA half of a
multi-backend build (hipified at build, or replaced by the target's backend), so they are not work
to do. Inline PTX outside any ROCm branch is the exception: it stays CUDA-only, and is named as such.
The verdict of a supported target is never ``higher`` (verdict.py).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from envsnap.audit import knowledge
from envsnap.audit.across_files import CUDA_BACKEND_KINDS, GPU_MEMBER, JIT_ONLY, UNPORTED
from envsnap.audit.judges.base import NAMES, where
from envsnap.audit.model import EXTRA_ONLY, TRITON_ASM, Finding, Signal, Target
from envsnap.audit.ports import is_cuda_backend, other_backend
from envsnap.audit.roles import role_of

COVERED = frozenset(
    {
        "cuda-source",
        "cuda-extension",
        "cuda-library",
        "warp32-mask",
        "cmake-cuda",
        "gencode",
        "cache-hint",
        "nvtx",
        "cufile",
        "cublaslt-layout",
        "hipify-unsupported",
        "cupy-kernel",
    }
)
"""Signal kinds a project's own port takes care of (built for the target, or replaced by its backend)."""
STAYS_CUDA = frozenset({"inline-ptx", "labeled-partition"})
"""Signal kinds that no port covers unless a branch excludes them: NVIDIA's ISA, and CUDA cooperative-group
calls HIP does not provide (the code does not compile for AMD GPUs as written)."""
BREAKS_BUILD = "breaks-rocm-build"
UNPORTED_OP = "op-not-ported"
"""A CUDA kernel whose op the project's per-op backend folder for the target lacks (across_files)."""
"""Rule of a STAYS_CUDA finding in a project whose only ROCm evidence is a build switch (verdict.py)."""
BUILD_SWITCH_REASONS = ("branches on torch.version.hip", "build switch ")
"""Evidence that the *build* knows ROCm (``if torch.version.hip:`` in setup.py, ``USE_ROCM``): such a
build hipifies the same CUDA sources, so it only works where those sources compile for HIP."""
MAX_EVIDENCE = 5


WEAK_REASONS = ("names the '", "uses torch.", "imports ")
"""Python evidence that shows a code path for the device, not a port of compiled code: a device name in a
table or comparison, a call into torch.xpu/torch.mps, an import of a portable GPU API (PyOpenCL). Enough
to call the Python side supported; not enough to say the project's CUDA kernels are built for the target."""


def evidence(signals: Iterable[Signal], target: Target, *, include_all: bool = False) -> tuple[str, ...]:
    """Why the project already runs on ``target``: one line per distinct reason, strongest first.

    Strong evidence (a backend folder, a ROCm branch, HIP/SYCL code, a build switch) comes before weak
    (a device name in Python); ``is_strong`` tells them apart.
    """
    if target.kind in ("cuda", "cpu"):
        return ()
    strong: list[str] = []
    weak: list[str] = []
    reasons: set[str] = set()
    for signal in signals:
        if signal.kind != "port" or signal.subject != target.kind:
            continue
        if not include_all and role_of(signal.file or "") != "core":
            continue
        reason = signal.facts().get("reason", "port")
        if reason in reasons:
            continue
        reasons.add(reason)
        (weak if reason.startswith(WEAK_REASONS) else strong).append(f"{reason} ({where(signal)})")
    return tuple((strong + weak)[:MAX_EVIDENCE])


def is_strong(proof: tuple[str, ...]) -> bool:
    """Whether the evidence includes a port of compiled code or a build switch (not only device names)."""
    return bool(proof) and not proof[0].startswith(WEAK_REASONS)


def build_switch_only(proof: tuple[str, ...]) -> bool:
    """Whether the strong evidence is only build switches: no ROCm branch, HIP code or backend folder."""
    strong = [line for line in proof if not line.startswith(WEAK_REASONS)]
    return bool(strong) and all(line.startswith(BUILD_SWITCH_REASONS) for line in strong)


def covered(finding: Finding, signal: Signal, target: Target, proof: tuple[str, ...]) -> Finding:
    """The finding of a supported target: covered by the port, or a part that stays CUDA-only."""
    name = NAMES[target.kind]
    if UNPORTED + target.kind in signal.detail:
        # A per-op backend folder without this op (across_files._unported_ops): the port does not cover it.
        return msgspec.structs.replace(
            finding,
            rule=UNPORTED_OP,
            meaning=f"No {name} kernel for this op in the project's {name} backend: {finding.meaning}",
        )
    if JIT_ONLY in signal.detail and finding.risk != "lower":
        # Compiled only when the code path that loads it runs (across_files._jit_only): the project's path
        # for the target (the proof) does not build it. PTX stays CUDA-only and is named as such.
        return msgspec.structs.replace(
            finding,
            rule="stays-cuda-only" if signal.kind in STAYS_CUDA else finding.rule,
            meaning=f"Compiled just in time, only where the project's CUDA kernels are chosen; its {name} "
            f"path ({proof[0]}) does not build it: {finding.meaning}",
            effort="none",
            risk="lower",
        )
    if (
        signal.kind in STAYS_CUDA
        and finding.risk != "lower"
        and target.kind == "rocm"
        and build_switch_only(proof)
        and signal.subject != TRITON_ASM  # Triton compiles per kernel at launch: no build hipifies it
    ):
        # gsplat (#22 blind round 4): setup.py defines USE_ROCM under `if torch.version.hip:`, but no
        # source has a ROCm branch, so the hipified build compiles this as written and fails here.
        return msgspec.structs.replace(
            finding,
            rule=BREAKS_BUILD,
            meaning=f"The ROCm build ({proof[0]}) hipifies this as written, with no ROCm branch around it: "
            f"{finding.meaning}",
        )
    if signal.kind in STAYS_CUDA and finding.risk != "lower":
        return msgspec.structs.replace(
            finding,
            rule="stays-cuda-only",
            meaning=f"Stays CUDA-only: {finding.meaning} The project runs on {name} ({proof[0]}), so "
            f"this path is missing or disabled there.",
            risk="moderate",
        )
    member = _member_of(signal, target)
    if (
        signal.kind in CUDA_BACKEND_KINDS
        and finding.risk != "lower"
        and member is not None
        and any(line.startswith(f"{target.kind} backend f") for line in proof)
    ):
        # vLLM's platforms/cuda.py beside platforms/xpu.py, DeepSpeed's cuda_accelerator.py beside
        # xpu_accelerator.py: the CUDA member of a per-device layout runs only where CUDA is selected.
        # So does another device's member (vLLM's platforms/rocm.py on XPU, #22 blind round 11).
        backend = next(line for line in proof if line.startswith(f"{target.kind} backend f"))
        return msgspec.structs.replace(
            finding,
            meaning=f"In the project's {member} backend, which its {name} backend ({backend}) replaces "
            f"there: {finding.meaning}",
            effort="none",
            risk="lower",
        )
    if signal.kind == "import" and finding.risk != "lower" and _backend_of(signal) == target.kind:
        # The target's own device backend (IPEX for XPU) imported by a project that has a path there: that
        # path's dependency, installed with it (ipex-llm 2.2's `xpu` extra pins IPEX 2.1.10+xpu, #22 blind
        # round 15). What the row advises (IPEX is retired: torch.xpu) is an upgrade, not a port.
        return msgspec.structs.replace(
            finding,
            meaning=f"{finding.meaning} The project has a path for {name} ({proof[0]}), and this is that "
            "device's own backend: its path runs with it as installed.",
            risk="lower",
        )
    if signal.kind == "ort-provider" or (
        signal.kind == "device-choices"
        and not _discards(signal)
        and any(not line.startswith(ONNX_PATH) for line in proof)
    ):
        # The project has a path for the device elsewhere (it names it, or ports to it): the closed set
        # (or a CUDA-only ONNX Runtime provider list) is one place to add it, not a missing port. A provider
        # name is a path for the ONNX models only, not for the models a device selection places.
        return msgspec.structs.replace(
            finding,
            meaning=f"{finding.meaning} The project has a path for {name} ({proof[0]}).",
            risk="lower",
        )
    if finding.rule.startswith("framework-") and finding.risk != "lower" and _torch_based(signal):
        # A Lightning project that names the target's device itself (a custom XPU accelerator) has the
        # path Lightning lacks.
        return msgspec.structs.replace(
            finding,
            meaning=f"{finding.meaning} The project has a path for {name} ({proof[0]}).",
            risk="lower",
        )
    if signal.kind in COVERED and finding.effort != "none" and is_strong(proof):
        return msgspec.structs.replace(
            finding,
            meaning=f"The project builds this for {name} itself ({proof[0]}): {finding.meaning}",
            effort="none",
            risk="lower",
            replacement=f"build the project's {name} backend as its docs say",
        )
    return finding


def _discards(signal: Signal) -> bool:
    """A device setting the project replaces with the CPU (``shape=discard...``): the caller's choice of the
    target is lost there, whatever path for it the project has elsewhere (dualcodec 0.4.2's ``Inference``
    resets ``device`` to "cpu" without CUDA while its TTS helpers name xpu and mps, #22 blind round 228)."""
    return any(item.startswith("shape=discard") for item in signal.detail)


def _backend_of(signal: Signal) -> str | None:
    """The device an imported package is the backend of (its knowledge row's ``device_backend``), or None."""
    key = signal.facts().get("package", "")
    return next((row.device_backend for row in knowledge.alternatives() if row.key == key), None)


def _member_of(signal: Signal, target: Target) -> str | None:
    """The device (in words) whose per-device layout member the signal's file is, when not the target's."""
    path = signal.file or ""
    if is_cuda_backend(path) or target.kind in signal.facts().get(GPU_MEMBER, "").split(","):
        return "CUDA"
    other = other_backend(path, target.kind)
    return NAMES[other] if other is not None else None


TORCH_CODE = frozenset({"cuda-guard", "cuda-api", "cuda-amp", "cudnn-flag", "device-agnostic"})
"""Signal kinds only PyTorch code emits (``torch.cuda.*``, ``torch.backends.cudnn``, ``torch.accelerator``)"""


def has_torch_path(signals: Iterable[Signal], *, include_all: bool = False) -> bool:
    """Whether the project's own code drives PyTorch devices (tests and examples count with include_all)."""
    return any(
        s.kind in TORCH_CODE and (include_all or s.file is None or role_of(s.file) == "core") for s in signals
    )


def _torch_based(signal: Signal | None) -> bool:
    """Whether the signal is about a package built on PyTorch (Lightning), not a second framework."""
    key = signal.facts().get("package", "") if signal is not None else ""
    return any(row.key == key and row.torch_based for row in knowledge.alternatives())


def beside_torch(finding: Finding, signal: Signal | None = None) -> Finding:
    """A second framework's plugin tier in a PyTorch project: its JAX modules are one path, not the only one.

    diffusers or transformers 4.x ship Flax models next to the PyTorch ones; the PyTorch path runs on the
    target whatever JAX's plugin support there, so the JAX import alone does not set the verdict.
    """
    if not finding.rule.startswith("framework-") or finding.risk == "lower":
        return finding
    if _torch_based(signal):
        return finding  # Lightning is the PyTorch path itself, not a second framework beside it
    return msgspec.structs.replace(
        finding,
        meaning=f"{finding.meaning} The project drives PyTorch devices too: that path does not need it.",
        risk="lower",
    )


def compute_frameworks(signals: Iterable[Signal], *, include_all: bool = False) -> frozenset[str]:
    """Keys of the compute frameworks (JAX) the project's own code imports; input-pipeline ones left out.

    One counts only where at least as many of the project's modules import it as import an input-pipeline
    framework: big_vision imports JAX throughout and tf.data in its input code, while TensorFlow
    Probability 0.25 imports ``tensorflow.compat.v2`` in its distributions and JAX in one module (#22 blind
    round 47): there TensorFlow is the compute, not JAX's data feed.
    """
    rows = {row.key: row for row in knowledge.alternatives() if row.framework}
    modules: dict[str, set[str]] = {}
    for s in signals:
        key = s.facts().get("package", "") if s.kind == "import" else ""
        if key in rows and (include_all or role_of(s.file or "") == "core"):
            modules.setdefault(key, set()).add(s.file or "")
    pipeline = max((len(files) for key, files in modules.items() if rows[key].data_pipeline), default=0)
    return frozenset(
        key for key, files in modules.items() if not rows[key].data_pipeline and len(files) >= pipeline
    )


def beside_framework(finding: Finding, signal: Signal, frameworks: frozenset[str]) -> Finding:
    """An input-pipeline framework (TensorFlow) in a project that computes with another (JAX): lower.

    big_vision trains in JAX and reads its data with tf.data, hiding the GPUs from TensorFlow
    (``tf.config.set_visible_devices([], "GPU")``): TensorFlow runs on the host CPU whatever its plugin
    support on the target, so it does not set the verdict (#22 blind round 9).
    """
    if not frameworks or not finding.rule.startswith("framework-") or finding.risk == "lower":
        return finding
    key = signal.facts().get("package", "")
    row = next((r for r in knowledge.alternatives() if r.key == key), None)
    if row is None or not row.data_pipeline:
        return finding
    rows = {r.key: r.what for r in knowledge.alternatives()}
    names = ", ".join(rows.get(k, k) for k in sorted(frameworks))
    return msgspec.structs.replace(
        finding,
        meaning=f"{finding.meaning} The project computes with {names}: {row.what} feeds it data on the CPU.",
        risk="lower",
    )


DEPLOYMENT_RUNTIMES = frozenset({"tensorrt"})
"""Packages that only run an exported model on NVIDIA GPUs, not the project's code (TensorRT, an SDK:
https://docs.nvidia.com/deeplearning/tensorrt/latest/getting-started/support-matrix.html)."""


def deployment_script(finding: Finding, signal: Signal) -> Finding:
    """TensorRT imported by a standalone script of a PyTorch project: an NVIDIA deployment recipe.

    YOLOX's tools/trt.py (`if __name__ == "__main__":`) converts a trained model to a TensorRT engine; its
    trainer and demo run in PyTorch. On another GPU the recipe is replaced (ONNX + MIGraphX/OpenVINO/Core ML)
    while the project itself moves as it is. Called only where the project's own code drives PyTorch devices;
    a project built on TensorRT imports it from its modules (torch2trt) or C++ (tensorrtx), which stay higher.
    """
    if (
        finding.rule != "cuda-only-import"
        or finding.risk == "lower"
        or "script=1" not in signal.detail
        or signal.facts().get("package") not in DEPLOYMENT_RUNTIMES
    ):
        return finding
    return msgspec.structs.replace(
        finding,
        meaning=f"{finding.meaning} Only a standalone deployment script imports it (a __main__ entry "
        "point): the project trains and infers in PyTorch without it.",
        risk="lower",
    )


PACKAGE_RULES = ("cuda-only-import", "cuda-only-requirement")
ONNX_PATH = "names ONNX Runtime's "
"""Evidence that only the project's ONNX models have a path on the target (a provider name), not its code."""


def optional_engine(
    finding: Finding, signal: Signal, target: Target, proof: tuple[str, ...], torch_path: bool
) -> Finding:
    """A CUDA-only package declared only in an optional extra, in a project whose own device path runs on
    the target: one of its engines, picked on request, not a port to do (lower).

    infinity-emb 0.0.78 (#22 blind round 17) serves its models through PyTorch by default and offers
    CTranslate2 and TensorRT as extras; reikna 0.9 has a PyOpenCL and a PyCUDA extra. On ROCm the PyTorch
    path is the project's own (torch.cuda is HIP); elsewhere the project must name the device, use its
    torch module, import a portable GPU API or port code to it. A provider name alone is a path for the
    ONNX models only, so it does not count.
    """
    if finding.rule not in PACKAGE_RULES or finding.risk == "lower" or EXTRA_ONLY not in signal.detail:
        return finding
    paths = [line for line in proof if not line.startswith(ONNX_PATH)]
    if target.kind == "rocm" and torch_path:
        paths.append("its PyTorch code, whose torch.cuda device is the AMD GPU under ROCm PyTorch")
    if not paths:
        return finding
    return msgspec.structs.replace(
        finding,
        meaning=f"{finding.meaning} The project runs on {NAMES[target.kind]} without it ({paths[0]}): this "
        "extra is one of its engines, chosen on request.",
        risk="lower",
    )
