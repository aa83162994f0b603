"""The system CUDA toolkit against the framework and the driver (docs/compat-rules.md B6.6).

The toolkit (nvcc, headers) only matters when something is compiled: torch's cpp_extension refuses
a different CUDA major and only warns about a different minor; DeepSpeed compares major.minor and
accepts minor differences only within 10.x–12.x. A toolkit without a driver is fine for building
and useless for running — worth saying, since ``nvcc --version`` is often mistaken for "CUDA works".
"""

from __future__ import annotations

from collections.abc import Iterator

from envsnap.rules import facts
from envsnap.rules.base import ev, finding, major_minor, rule
from envsnap.snapshot.model import CudaToolkit, Finding, Snapshot

CPP_EXTENSION_SOURCE = "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"
DEEPSPEED_SOURCE = "https://github.com/deepspeedai/DeepSpeed/blob/master/op_builder/builder.py"
NO_DRIVER_SOURCE = "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/"

# DeepSpeed's cuda_minor_mismatch_ok: majors whose minor versions it accepts mixing.
_DEEPSPEED_MINOR_OK = (10, 11, 12)


def system_cuda(snapshot: Snapshot) -> CudaToolkit | None:
    """The system CUDA toolkit section when the probe found one."""
    toolkits = snapshot.toolkits
    cuda = toolkits.cuda if toolkits is not None else None
    return cuda if cuda is not None and cuda.ok else None


def _toolkit_version(cuda: CudaToolkit) -> tuple[str | None, str]:
    if cuda.version:
        return cuda.version, "toolkits.cuda.version"
    return cuda.nvcc_version, "toolkits.cuda.nvcc_version"


@rule("nvcc-torch-cuda-mismatch")
def nvcc_mismatch(snapshot: Snapshot) -> Iterator[Finding]:
    """nvcc's CUDA differs from the CUDA torch was built with: extension builds fail or need care."""
    cuda = system_cuda(snapshot)
    torch = facts.torch(snapshot)
    if cuda is None or torch is None or not torch.cuda:
        return
    text, path = _toolkit_version(cuda)
    nvcc, built = major_minor(text), major_minor(torch.cuda)
    if nvcc is None or built is None or nvcc == built:
        return
    evidence = [ev(path, text), ev("frameworks.torch.cuda", torch.cuda)]
    if cuda.path:
        evidence.append(ev("toolkits.cuda.path", cuda.path))
    nvcc_text, built_text = f"{nvcc[0]}.{nvcc[1]}", f"{built[0]}.{built[1]}"
    install = (
        f"install CUDA toolkit {built_text} and point CUDA_HOME at it (e.g. /usr/local/cuda-{built_text})"
    )
    if nvcc[0] != built[0]:
        yield finding(
            "nvcc-torch-cuda-mismatch",
            "error",
            f"System nvcc is CUDA {nvcc_text} but torch was built with CUDA {built_text}: "
            "building CUDA extensions fails ('The detected CUDA version mismatches')",
            f"To build extensions, {install}; or use a torch built for CUDA {nvcc[0]}.x.",
            CPP_EXTENSION_SOURCE,
            evidence,
        )
        return
    strict = (
        ""
        if nvcc[0] in _DEEPSPEED_MINOR_OK
        else " — DeepSpeed refuses this pair (it accepts no 13.x minor mismatch)"
    )
    yield finding(
        "nvcc-torch-cuda-mismatch",
        "info",
        f"System nvcc is CUDA {nvcc_text}, torch was built with CUDA {built_text}: torch accepts the minor "
        f"difference{strict}",
        f"Usually fine for torch extensions; DeepSpeed compares major.minor, so for DeepSpeed ops {install} "
        "(or set DS_SKIP_CUDA_CHECK=1 at your own risk).",
        DEEPSPEED_SOURCE,
        evidence,
    )


@rule("cuda-toolkit-without-driver")
def toolkit_without_driver(snapshot: Snapshot) -> Iterator[Finding]:
    """A CUDA toolkit is installed but there is no NVIDIA driver."""
    cuda = system_cuda(snapshot)
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    if cuda is None or (nvidia is not None and nvidia.status != "skipped"):
        return
    if nvidia is None and facts.imported(snapshot):
        return  # a pasted report that doesn't name the driver says nothing about it
    text, path = _toolkit_version(cuda)
    evidence = [ev(path, text)]
    if cuda.path:
        evidence.append(ev("toolkits.cuda.path", cuda.path))
    if nvidia is not None and nvidia.reason:
        evidence.append(ev("accelerators.nvidia.reason", nvidia.reason))
    else:
        evidence.append(ev("accelerators.nvidia.status", nvidia.status if nvidia is not None else None))
    yield finding(
        "cuda-toolkit-without-driver",
        "info",
        f"CUDA toolkit{f' {text}' if text else ''} is installed but there is no NVIDIA driver: "
        "fine for building, not for running",
        "Nothing to do on a build machine. To run CUDA code here, install the NVIDIA driver "
        "(and check `nvidia-smi`).",
        NO_DRIVER_SOURCE,
        evidence,
    )
