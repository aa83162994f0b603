"""Errors printed around a pasted report that the table-driven checks could not reach (docs/compat-rules.md).

A pasted report often holds only what torch printed: ``found version 10010``, ``sm_120 is not
compatible``, ``no kernel image is available``, ``xFormers was built for ... (you have ...)``,
``cuDNN version incompatibility``. These lines are the stack telling on itself, as strong as any
table: when the regular check for the same cause already fires (it names versions and a precise
fix), it says it better and nothing is added here; when the report lacks what that check needs (no
build, no driver version), the printed line is the evidence and this module raises the finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from envsnap.rules import (
    arch,
    build,
    driver,
    facts,
    health,
    jax,
    knowledge,
    libraries,
    onnxruntime,
    rocm,
    toolkit,
    wheels,
)
from envsnap.rules import env_vars as environment
from envsnap.rules.base import ev, finding, rule
from envsnap.snapshot.model import Finding, Severity, Snapshot

RuleFunc = Callable[[Snapshot], Iterable[Finding]]


@dataclass(frozen=True)
class Printed:
    """What one kind of printed line means."""

    kinds: tuple[str, ...]
    id: str
    severity: Severity
    title: str
    fix: str
    source: str
    regular: tuple[RuleFunc, ...]
    """The checks that find the same cause from the tables; when one fires, this one stays quiet."""
    variables: tuple[str, ...] = ()
    """Only when one of these environment variables is set (it is the cause the line points at)."""
    unless: tuple[str, ...] = ()
    """Printed kinds that, shown in the same paste, make the line expected rather than a cause."""
    needs_nvidia: bool = False
    """Only when the report shows an NVIDIA GPU or a working NVIDIA driver (the line alone is no cause), and
    no torch build with CUDA or ROCm (then the line came from another interpreter than the one listed)."""
    needs_intel: bool = False
    """Only when the report shows an Intel GPU and no torch build with XPU (the XPU twin of needs_nvidia)."""
    contradicted: Callable[[Snapshot, str], bool] | None = None
    """Whether the rest of the report shows the line's cause absent (given the printed line)."""


PRINTED = (
    Printed(
        ("driver-too-old", "driver-insufficient", "driver-forward-compat", "ptx-unsupported-toolchain"),
        "driver-too-old-for-cuda-build",
        "error",
        "The NVIDIA driver is too old for this CUDA build: torch said so",
        "Upgrade the NVIDIA driver (the 'found version' is the newest CUDA it runs: 10010 = CUDA 10.1), or "
        "install a torch build for a CUDA the driver supports (https://pytorch.org/get-started/previous-versions/).",
        "https://docs.nvidia.com/deploy/cuda-compatibility/",
        (driver.driver_too_old,),
    ),
    Printed(
        ("arch-not-compatible", "gpu-too-old", "no-kernel-image", "hip-invalid-device-function"),
        "arch-not-in-build",
        "error",
        "The build has no code for this GPU: torch said so",
        "Compare the GPU's compute capability (ROCm: gfx target) with the build's list "
        '(`python -c "import torch; print(torch.cuda.get_arch_list())"`) and install a build that includes '
        "it (a newer CUDA for new GPUs, an older release for old ones); if torch lists it, rebuild the "
        "extension that failed.",
        arch.CUDA_SOURCE,
        (arch.cuda_arch, arch.rocm_arch),
        # HIP's line on a host showing only NVIDIA GPUs: no gfx target is missing, the build is for the
        # wrong vendor (the next entry says so)
        contradicted=lambda snapshot, line: _hip_line_on_nvidia_host(snapshot, line),
    ),
    Printed(
        # TensorFlow's own line that it ignores a GPU below the build's minimum compute capability: the same
        # cause as torch's lines above, worded by another framework (judged only when torch said nothing)
        ("tf-gpu-below-minimum",),
        "arch-not-in-build",
        "error",
        "The build has no code for this GPU: TensorFlow said so",
        "TensorFlow ignores a GPU whose compute capability is below its build's minimum: use a GPU at or "
        "above that capability, or a TensorFlow release (or a source build) that still targets it.",
        "https://www.tensorflow.org/install/pip#hardware_requirements",
        (arch.cuda_arch,),
        unless=("arch-not-compatible", "gpu-too-old", "no-kernel-image", "hip-invalid-device-function"),
    ),
    Printed(
        # candle's line (text-embeddings-inference's images are each compiled for one compute capability):
        # the GPU's capability is not the image's, the same cause worded by a Rust server
        ("compute-cap-not-compiled",),
        "arch-not-in-build",
        "error",
        "The build has no code for this GPU: the server said its kernels were compiled for another compute "
        "capability",
        "Use the image or build compiled for this GPU's compute capability (text-embeddings-inference "
        "publishes one per architecture: turing-, 86-, 89-, hopper- tags; or build with CUDA_COMPUTE_CAP "
        "set to it).",
        "https://github.com/huggingface/text-embeddings-inference#docker-images",
        (arch.cuda_arch,),
        unless=("arch-not-compatible", "gpu-too-old", "no-kernel-image", "hip-invalid-device-function"),
    ),
    Printed(
        # HIP's own "no code object for the devices" / "invalid device function", printed by a ROCm build of
        # torch (or of another framework) on a host whose report shows only NVIDIA GPUs: the process loaded
        # the ROCm runtime, which finds no AMD GPU to run on. Installing the CUDA build is the fix.
        ("hip-invalid-device-function",),
        "build-vendor-mismatch",
        "error",
        "A ROCm (HIP) build runs on a host whose GPUs are NVIDIA: HIP said so",
        "Install the CUDA build instead (e.g. `pip install torch --index-url "
        "https://download.pytorch.org/whl/cu126`, a CUDA the driver supports; an installer that picked ROCm "
        "needs its GPU detection fixed), and check with "
        '`python -c "import torch; print(torch.version.cuda, torch.version.hip)"`.',
        build.VENDOR_SOURCE,
        (build.vendor_mismatch,),
        contradicted=lambda snapshot, line: not _hip_line_on_nvidia_host(snapshot, line),
    ),
    Printed(
        ("cudnn-mismatch", "cuda-lib-shadowed"),
        "ld-library-path-shadowing",
        "error",
        "Another cuDNN is loaded instead of the one torch was built with",
        "Let torch load its own cuDNN: remove the system cuDNN directory from `LD_LIBRARY_PATH` "
        "(`echo $LD_LIBRARY_PATH`), or install the cuDNN version torch was compiled against.",
        "https://pytorch.org/get-started/locally/",
        (libraries.shadowed_libraries,),
    ),
    Printed(
        (
            "xformers-built-for",
            "torch-abi-mismatch",
            "pip-conflict",
            "extension-other-cuda",
            "deepspeed-ops-other-torch",
        ),
        "companion-version-mismatch",
        "error",
        "An extension was built for another torch build than the installed one",
        "Install the extension build made for your torch (same version and CUDA variant), e.g. "
        "`pip install -U xformers --index-url https://download.pytorch.org/whl/cu121` for a cu121 torch, "
        "or rebuild it against the installed torch.",
        "https://github.com/facebookresearch/xformers#installing-xformers",
        (wheels.companions,),
    ),
    Printed(
        ("nvcc-mismatch",),
        "nvcc-torch-cuda-mismatch",
        "error",
        "The CUDA toolkit (nvcc) building an extension differs from torch's CUDA",
        "Build with the toolkit matching torch's CUDA: point `CUDA_HOME` at it (and PATH), or install a "
        "torch built for your toolkit's CUDA.",
        "https://pytorch.org/docs/stable/cpp_extension.html",
        (toolkit.nvcc_mismatch,),
    ),
    Printed(
        ("no-cuda-gpus",),
        "cuda-visible-devices-hides-gpus",
        "warning",
        "torch sees no GPU while a *_VISIBLE_DEVICES variable is set",
        "Unset the variable (`unset CUDA_VISIBLE_DEVICES`) or list indices/UUIDs that exist "
        "(`nvidia-smi -L`).",
        environment.CUDA_SOURCE,
        (environment.visible_devices,),
        ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"),
    ),
    Printed(
        # torch's own assertion: the installed build has no CUDA. It is the cause only where the report
        # shows an NVIDIA GPU or driver (on a Mac or a CPU-only machine the build is the right one).
        ("torch-not-compiled-with-cuda",),
        "cpu-only-build-on-gpu-host",
        "error",
        "torch is a CPU-only build on a host with an NVIDIA GPU: torch said so ('Torch not compiled with "
        "CUDA enabled')",
        "Reinstall torch from a CUDA index picked for the driver (`nvidia-smi` shows the newest CUDA it "
        "runs), e.g. `pip install torch --index-url https://download.pytorch.org/whl/cu126`; check with "
        '`python -c "import torch; print(torch.version.cuda)"` (None is a CPU-only build).',
        "https://pytorch.org/get-started/locally/",
        (build.cpu_only_build,),
        needs_nvidia=True,
    ),
    Printed(
        # torch.xpu's assertion: the build has no XPU (a CPU or CUDA wheel where the XPU one was meant).
        # The cause only where the report shows an Intel GPU; on other hosts the build may be the right one.
        ("torch-not-compiled-with-xpu",),
        "cpu-only-build-on-gpu-host",
        "error",
        "torch has no XPU support on a host with an Intel GPU: torch said so ('Torch not compiled with XPU "
        "enabled')",
        "Reinstall torch from the XPU index, e.g. `pip install torch --index-url "
        "https://download.pytorch.org/whl/xpu` (torchvision/torchaudio from the same index); check with "
        '`python -c "import torch; print(torch.xpu.is_available())"`.',
        "https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html",
        (build.cpu_only_build,),
        needs_intel=True,
    ),
    Printed(
        ("no-nvidia-driver",),
        "nvidia-driver-not-found",
        "error",
        "No NVIDIA driver is visible: CUDA cannot start",
        "Install the NVIDIA driver for the GPU (`nvidia-smi` must work); in a container run it with the "
        "NVIDIA runtime (`docker run --gpus all`, Kubernetes `runtimeClassName: nvidia` / the GPU "
        "operator) so the driver's libraries (libcuda, libnvidia-ml) are mounted in; macOS has no CUDA "
        "driver since 10.14.",
        "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/install-guide.html",
        (),
        unless=("vllm-cpu-platform",),
        contradicted=lambda snapshot, line: (
            ("libnvidia-ml" in line and _driver_answered(snapshot)) or _cuda_torch_on_amd_host(snapshot)
        ),
    ),
    Printed(
        ("gpu-lost",),
        health.ID,
        "error",
        "A GPU is lost: the driver cannot reach it",
        "Drain the node and reset the GPU (`nvidia-smi -r -i <index>`) or reboot; check the kernel log "
        "(`dmesg | grep -i xid`: Xid 79 is 'fallen off the bus'), the GPU's cooling, power and slot "
        "(reseat it); a GPU the driver never initialises ('RmInitAdapter failed') may need Above 4G "
        "decoding / Resizable BAR in the BIOS.",
        health.XID_SOURCE,
        (health.telemetry_health,),
    ),
    Printed(
        ("onnxruntime-cuda-libs",),
        onnxruntime.ID,
        "error",
        "onnxruntime's CUDA provider cannot load the CUDA libraries it was built for; "
        "sessions run on the CPU",
        "The missing library's number is the CUDA major the onnxruntime-gpu build needs "
        "(libcublasLt.so.11 = CUDA 11). Install the onnxruntime-gpu build for the CUDA you have "
        "(`pip install -U onnxruntime-gpu` is CUDA 12 from 1.19; CUDA 11 builds come from the "
        "onnxruntime-cuda-11 feed), or import torch first so its bundled CUDA libraries are loaded.",
        onnxruntime.SOURCE,
        (onnxruntime.ort_cuda,),
    ),
    Printed(
        ("jax-plugin-incompatible",),
        jax.ID,
        "error",
        "JAX's CUDA/ROCm plugin is from another release than jaxlib: JAX does not use it (CPU only)",
        "Install the plugin (and its PJRT wheel) of jaxlib's release, e.g. "
        "`pip install 'jax[cuda12]==<jaxlib version>'`, or pin jax-cuda12-plugin and jax-cuda12-pjrt to it.",
        jax.SOURCE,
        (jax.jax_plugins,),
    ),
    Printed(
        # the program's own check: the GPU's gfx target is missing from the ROCm libraries it ships
        ("rocm-gfx-not-in-library",),
        rocm.ID,
        "warning",
        "The GPU's gfx target is not among those the program's bundled ROCm supports: it said so",
        "Run a build of the program whose ROCm libraries include this target (a newer release), or map the "
        "GPU to a listed target of its own family with HSA_OVERRIDE_GFX_VERSION (unofficial, partial: "
        "11.0.0 = gfx1100 for an RDNA3 APU's gfx1103, 10.3.0 = gfx1030 for RDNA2).",
        knowledge.hsa_override_source(),
        (rocm.unsupported_gfx,),
        contradicted=lambda _snapshot, line: _gfx_listed(line),
    ),
    Printed(
        ("bitsandbytes-cpu",),
        "bitsandbytes-cpu-fallback",
        "error",
        "bitsandbytes loaded its CPU library: 8-bit and 4-bit GPU kernels are unavailable",
        "Upgrade bitsandbytes (`pip install -U bitsandbytes`; releases from 0.43 ship binaries for "
        "every CUDA 11.7-12.x runtime and select them from torch's CUDA), and unset BNB_CUDA_VERSION "
        "unless you built that variant yourself.",
        "https://huggingface.co/docs/bitsandbytes/main/en/installation",
        (),
    ),
)


_GFX_TARGET = re.compile(r"gfx[0-9a-f]{3,4}")
_HIP_WORDING = re.compile(r"\bHIP error\b|\bhipError\w+|Unable to find code object", re.I)


def _gfx_listed(line: str) -> bool:
    """Whether the target a 'not supported' line names is in its own list after all (then it is no cause)."""
    targets = _GFX_TARGET.findall(line)
    if "gpu_type=" in line:
        named = _GFX_TARGET.match(line.rsplit("gpu_type=", 1)[1][:8])
        return named is None or named.group(0) in targets[:-1]
    return not targets or targets[0] in targets[1:]


def _driver_answered(snapshot: Snapshot) -> bool:
    """Whether the report shows the NVIDIA driver answering (nvidia-smi's header or -q: its version).

    nvidia-smi loads libnvidia-ml itself, so where it printed a driver version the library is installed:
    the container toolkit's "load library failed: libnvidia-ml.so.1" is then its own lookup failing (its
    ldcache, a snap or rootless docker), not a missing driver."""
    info = facts.nvidia(snapshot)
    return info is not None and bool(info.driver_version)


def _cuda_torch_on_amd_host(snapshot: Snapshot) -> bool:
    """A CUDA torch on a host showing only AMD GPUs: it finds no NVIDIA driver because the build is for the
    wrong vendor (build-vendor-mismatch says so); installing an NVIDIA driver is no fix."""
    torch = facts.torch(snapshot)
    return bool(
        torch is not None
        and torch.cuda
        and facts.amd_devices(snapshot)
        and not facts.nvidia_devices(snapshot)
    )


def _hip_line_on_nvidia_host(snapshot: Snapshot, line: str) -> bool:
    """Whether a HIP error line comes from a ROCm build on a host the report shows with only NVIDIA GPUs
    (no AMD GPU, no torch built for CUDA: then the line came from another interpreter than the one listed).
    rocBLAS's 'Illegal seek for GPU arch : gfxNNNN' names an AMD target, so it is left to the arch check;
    CUDA's own lines ('no kernel image', 'sm_120 is not compatible') are never HIP's."""
    if not _HIP_WORDING.search(line) or "gfx" in line.lower():
        return False
    torch = facts.torch(snapshot)
    if torch is not None and torch.cuda:
        return False
    return bool(facts.nvidia_devices(snapshot)) and not facts.amd_devices(snapshot)


def _nvidia_shown(snapshot: Snapshot) -> bool:
    """Whether the report shows an NVIDIA GPU or an NVIDIA driver that answered (nvidia-smi's header)."""
    info = facts.nvidia(snapshot)
    return info is not None and bool(info.devices or info.driver_version)


def _intel_shown_without_xpu_build(snapshot: Snapshot) -> bool:
    """Whether the report shows an Intel GPU and no torch build with XPU (else the line is about another
    interpreter than the torch listed)."""
    intel = snapshot.accelerators.intel if snapshot.accelerators else None
    torch = facts.torch(snapshot)
    listed = facts.package(snapshot, "torch")
    xpu_build = (torch is not None and (bool(torch.xpu) or facts.local_tag(torch.version) == "xpu")) or (
        listed is not None and facts.local_tag(listed.version) == "xpu"
    )
    return intel is not None and bool(intel.devices) and not xpu_build


def _gpu_build_listed(snapshot: Snapshot) -> bool:
    torch = facts.torch(snapshot)
    return torch is not None and bool(torch.cuda or torch.hip)


@rule(*dict.fromkeys(p.id for p in PRINTED))
def printed_causes(snapshot: Snapshot) -> Iterator[Finding]:
    """One finding per cause the printed lines show and no table-driven check found."""
    for printed in PRINTED:
        message = facts.reported(snapshot, *printed.kinds)
        if message is None:
            continue
        variables = facts.variables(snapshot)
        shown = [name for name in printed.variables if name in variables]
        if printed.variables and not shown:
            continue
        if printed.unless and facts.reported(snapshot, *printed.unless) is not None:
            continue
        if printed.needs_nvidia and (not _nvidia_shown(snapshot) or _gpu_build_listed(snapshot)):
            continue
        if printed.needs_intel and not _intel_shown_without_xpu_build(snapshot):
            continue
        if any(f.id == printed.id for regular in printed.regular for f in regular(snapshot)):
            continue
        if printed.contradicted is not None and printed.contradicted(snapshot, message.text):
            continue
        title, fix = printed.title, printed.fix
        if message.kind == "no-kernel-image" and message.text.startswith("raised in "):
            component = message.text[len("raised in ") :].split(":", 1)[0]
            title = f"{component}'s compiled kernels have no code for this GPU (the error is raised there)"
            fix = (
                f"Install a {component} build compiled for this GPU's compute capability (a wheel whose arch "
                f"list includes it, or build it with TORCH_CUDA_ARCH_LIST set to the GPU's CC); torch's own "
                "build is not the cause unless torch reports the GPU unsupported too."
            )
        yield finding(
            printed.id,
            printed.severity,
            f"{title}: '{message.text[:120]}'",
            fix,
            printed.source,
            [
                ev(f"meta.origin.messages[{message.kind}]", message.text),
                *(ev(f"environment.variables.{name}", variables[name]) for name in shown),
            ],
        )
