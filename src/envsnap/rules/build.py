"""Does the framework build match the host's GPU vendor at all? (docs/compat-rules.md B6.2)

The most common silent failure on a GPU host is a CPU-only torch: ``torch.cuda.is_available()``
just returns False and the job runs on the CPU. Close behind: a CUDA build on an AMD host or a
ROCm build on an NVIDIA host, and CUDA-only wheels dragged into a ROCm environment.
"""

from __future__ import annotations

from collections.abc import Iterator

from packaging.utils import canonicalize_name
from packaging.version import Version

from envsnap.rules import compat, facts, knowledge
from envsnap.rules.base import ev, finding, rule, version
from envsnap.snapshot.model import Finding, Snapshot

CPU_BUILD_SOURCE = "https://pytorch.org/get-started/locally/"
VENDOR_SOURCE = "https://pytorch.org/get-started/locally/"


JAX_CPU_FALLBACK = "a CUDA-enabled jaxlib is not installed"
"""jax's own warning when it sees an NVIDIA GPU next to a CPU-only jaxlib (then it falls back to the CPU)."""
JAX_SOURCE = "https://docs.jax.dev/en/latest/installation.html"


@rule("cpu-only-build-on-gpu-host")
def cpu_only_build(snapshot: Snapshot) -> Iterator[Finding]:
    """torch has neither CUDA nor ROCm while the driver reports GPUs."""
    yield from _cpu_only_jaxlib(snapshot)
    torch = facts.torch(snapshot)
    # Without a version the torch section holds only what a pasted warning said (its arch list):
    # whether the build has CUDA is not known, which is not the same as "no CUDA".
    if torch is None or torch.cuda or torch.hip or not torch.version:
        return
    nvidia = facts.nvidia_devices(snapshot)
    amd = facts.amd_devices(snapshot)
    if not nvidia and not amd:
        yield from _cpu_wheel_where_launcher_found_nvidia(snapshot)
        return
    build = facts.torch_build(snapshot)
    evidence = [
        ev("frameworks.torch.version", facts.torch_version(snapshot)),
        ev("frameworks.torch.cuda", None),
    ]
    if nvidia:
        info = facts.nvidia(snapshot)
        gpus = f"{len(nvidia)}× {nvidia[0].name or 'NVIDIA GPU'}"
        evidence += [
            ev("accelerators.nvidia.devices[0].name", nvidia[0].name),
            ev("accelerators.nvidia.driver_version", info.driver_version if info else None),
        ]
        fix = _nvidia_fix(snapshot, build)
    else:
        gpus = f"{len(amd)}× {amd[0].name or 'AMD GPU'}"
        evidence += [ev("frameworks.torch.hip", None), ev("accelerators.amd.devices[0].name", amd[0].name)]
        fix = _rocm_fix(build)
    yield finding(
        "cpu-only-build-on-gpu-host",
        "error",
        f"{facts.torch_label(snapshot)} is a CPU-only build on a host with {gpus}: "
        "everything runs on the CPU",
        fix,
        CPU_BUILD_SOURCE,
        evidence,
    )


def _cpu_wheel_where_launcher_found_nvidia(snapshot: Snapshot) -> Iterator[Finding]:
    """A ``+cpu`` torch where the launcher said it found nvidia-smi ('nVidia toolkit detected'): the NVIDIA
    driver is installed, no GPU is named. Only the explicit ``+cpu`` tag counts: a bare version from such a
    log does not say which wheel it is."""
    said = facts.reported(snapshot, "launcher-nvidia-smi-found")
    if said is None or facts.local_tag(facts.torch_version(snapshot)) != "cpu":
        return
    yield finding(
        "cpu-only-build-on-gpu-host",
        "error",
        f"{facts.torch_label(snapshot)} is a CPU-only build where the launcher found nvidia-smi (an NVIDIA "
        "driver is installed): everything runs on the CPU",
        _nvidia_fix(snapshot, facts.torch_build(snapshot)),
        CPU_BUILD_SOURCE,
        [
            ev("frameworks.torch.version", facts.torch_version(snapshot)),
            ev("meta.origin.messages[launcher-nvidia-smi-found]", said.text),
        ],
    )


def _cpu_only_jaxlib(snapshot: Snapshot) -> Iterator[Finding]:
    """jax said it found an NVIDIA GPU but jaxlib has no CUDA: everything runs on the CPU."""
    jax = snapshot.frameworks.jax if snapshot.frameworks else None
    if jax is None or not jax.ok or jax.backend != "cpu":
        return
    said = next((w for w in jax.warnings or () if JAX_CPU_FALLBACK in w), None)
    if said is None or not facts.nvidia_devices(snapshot):
        return
    label = f"jaxlib {jax.jaxlib_version}" if jax.jaxlib_version else "jaxlib"
    torch = facts.torch(snapshot)
    if torch is not None and torch.cuda and torch.available is not None and torch.available.cuda:
        # torch in the same environment runs on the GPU: jax is a side install there (transformers-cli env
        # and diffusers-cli env import it; flax pulls the CPU jaxlib), so only jax code stays on the CPU.
        yield finding(
            "cpu-only-build-on-gpu-host",
            "info",
            f"{label} is a CPU-only build beside {facts.torch_label(snapshot)}, which uses the GPU: "
            "jax code (flax) runs on the CPU",
            'Only if you run jax on the GPU: `pip install -U "jax[cuda12]"`.',
            JAX_SOURCE,
            [
                ev("frameworks.jax.backend", jax.backend),
                ev("frameworks.jax.warnings", said),
                ev("frameworks.torch.available.cuda", True),
            ],
        )
        return
    yield finding(
        "cpu-only-build-on-gpu-host",
        "error",
        f"{label} is a CPU-only build on a host with an NVIDIA GPU: jax falls back to the CPU",
        'Install jax with its CUDA plugin: `pip install -U "jax[cuda12]"` (conda-forge: '
        "`conda install -c conda-forge jaxlib=*=*cuda*`).",
        JAX_SOURCE,
        [ev("frameworks.jax.backend", jax.backend), ev("frameworks.jax.warnings", said)],
    )


def _nvidia_fix(snapshot: Snapshot, build: facts.TorchBuild | None) -> str:
    info = facts.nvidia(snapshot)
    driver = version(info.driver_version) if info else None
    devices = facts.nvidia_ccs(snapshot)
    machine = snapshot.host.arch if snapshot.host and snapshot.host.arch else "x86_64"
    variant = (
        compat.suggest_cuda_variant(
            build.release, driver=driver, devices=devices, machine=machine, windows=facts.is_windows(snapshot)
        )
        if build is not None
        else None
    )
    if build is not None and variant is not None:
        return (
            "Reinstall torch built for CUDA: "
            f"`pip uninstall -y torch && {compat.install_torch(build.release, variant)}` "
            "(reinstall torchvision/torchaudio from the same index)."
        )
    return f"Reinstall torch with a CUDA variant that your driver supports: see {compat.PYTORCH_GET_STARTED}."


def _rocm_fix(build: facts.TorchBuild | None) -> str:
    row = compat.release_row(build.release) if build is not None else None
    if build is not None and row is not None and row.rocm:
        command = compat.install_torch(build.release, f"rocm{row.rocm}")
        return f"Reinstall torch built for ROCm: `pip uninstall -y torch && {command}`."
    return f"Reinstall torch with a ROCm variant: see {compat.PYTORCH_GET_STARTED}."


def _cuda_build_hint(build: facts.TorchBuild | None, cuda: Version | None) -> str:
    """What to install on a host with CUDA but no GPU seen: the same torch release, for CUDA."""
    variant = compat.suggest_cuda_variant(build.release, driver=None, cuda_at_most=cuda) if build else None
    if build is None or variant is None:
        return (
            "If there is a GPU, reinstall torch from a CUDA index: see "
            f"{compat.PYTORCH_GET_STARTED} (pick the variant your driver runs; `nvidia-smi` shows it)."
        )
    matching = f", the newest not newer than the installed CUDA {cuda}" if cuda else ""
    return (
        f"If there is a GPU, reinstall the same torch built for CUDA ({variant}{matching}): "
        f"`pip uninstall -y torch && {compat.install_torch(build.release, variant)}`; the driver must run "
        "that CUDA version (`nvidia-smi` shows the newest it runs)."
    )


_CONDA_CUDA_RUNTIMES = frozenset({"pytorch-cuda", "cudatoolkit", "cuda-runtime", "cuda-cudart"})
"""conda's CUDA runtime packages: ``pytorch-cuda`` (the pytorch channel's CUDA pin), ``cudatoolkit``
(the pre-12 runtime), ``cuda-runtime``/``cuda-cudart`` (the nvidia channel's)."""


def _is_cuda_runtime(name: str) -> bool:
    canonical = canonicalize_name(name)
    return canonical.startswith("nvidia-cuda-runtime") or canonical in _CONDA_CUDA_RUNTIMES


def _cpu_only(snapshot: Snapshot, version: str) -> bool:
    """Whether the torch build is known to be CPU-only: a ``+cpu`` wheel, conda's CPU build (a ``pytorch``
    row whose build string says ``cpu``, which the conda importer keeps as the bare version), or collect_env's
    "CUDA used to build PyTorch: None" beside the version (a ``2.1.0.dev20230905`` nightly has no tag)."""
    if "+cpu" in version:
        return True
    if facts.stated_no_cuda_build(facts.torch(snapshot), facts.reported(snapshot, "torch-build-no-cuda")):
        return True
    conda_torch = next((p for p in snapshot.packages or () if canonicalize_name(p.name) == "pytorch"), None)
    return conda_torch is not None and conda_torch.installer == "conda" and conda_torch.version == version


@rule("cpu-only-build-with-cuda-installed")
def cpu_only_with_cuda(snapshot: Snapshot) -> Iterator[Finding]:
    """A CPU-only torch (``+cpu``) next to a CUDA toolkit or CUDA runtime wheels, on a host whose GPUs the
    report does not show: the CUDA install suggests a GPU was meant to be used."""
    torch = facts.torch(snapshot)
    if (
        torch is None
        or torch.cuda
        or torch.hip
        or not torch.version
        or not _cpu_only(snapshot, torch.version)
    ):
        return
    if facts.nvidia_devices(snapshot) or facts.amd_devices(snapshot):
        return  # cpu-only-build-on-gpu-host says it, as an error
    toolkit = snapshot.toolkits.cuda if snapshot.toolkits else None
    runtime = next((p for p in snapshot.packages or () if _is_cuda_runtime(p.name)), None)
    if (toolkit is None or not toolkit.ok or not toolkit.version) and runtime is None:
        return
    cuda = toolkit.version if toolkit is not None and toolkit.ok and toolkit.version else None
    evidence = [ev("frameworks.torch.version", torch.version)]
    said = facts.reported(snapshot, "torch-build-no-cuda")
    if "+cpu" not in torch.version and said is not None:
        evidence.append(ev("meta.origin.messages[torch-build-no-cuda]", said.text))
    if cuda:
        evidence.append(ev("toolkits.cuda.version", cuda))
    elif runtime is not None:
        evidence.append(ev(f"packages[{runtime.name}].version", runtime.version))
    yield finding(
        "cpu-only-build-with-cuda-installed",
        "info",
        f"torch {torch.version} is a CPU-only build while CUDA {cuda or 'runtime wheels'} is installed: "
        "if this machine has an NVIDIA GPU, torch will not use it",
        _cuda_build_hint(facts.torch_build(snapshot), version(cuda) if cuda else None),
        CPU_BUILD_SOURCE,
        evidence,
    )


@rule("build-vendor-mismatch")
def vendor_mismatch(snapshot: Snapshot) -> Iterator[Finding]:
    """A CUDA build on an AMD-only host, a ROCm build on an NVIDIA-only host, CUDA wheels under ROCm."""
    torch = facts.torch(snapshot)
    nvidia = facts.nvidia_devices(snapshot)
    amd = facts.amd_devices(snapshot)
    build = facts.torch_build(snapshot)
    if torch is not None and torch.cuda and amd and not nvidia:
        yield finding(
            "build-vendor-mismatch",
            "error",
            f"{facts.torch_label(snapshot)} is built for CUDA {torch.cuda} but this host only has AMD GPUs",
            _rocm_fix(build),
            VENDOR_SOURCE,
            [ev("frameworks.torch.cuda", torch.cuda), ev("accelerators.amd.devices[0].name", amd[0].name)],
        )
    if torch is not None and torch.hip and nvidia and not amd:
        yield finding(
            "build-vendor-mismatch",
            "error",
            f"{facts.torch_label(snapshot)} is built for ROCm (HIP {torch.hip}) "
            "but this host only has NVIDIA GPUs",
            _nvidia_fix(snapshot, build),
            VENDOR_SOURCE,
            [
                ev("frameworks.torch.hip", torch.hip),
                ev("accelerators.nvidia.devices[0].name", nvidia[0].name),
            ],
        )
    for companion in facts.wrong_vendor_companions(snapshot):
        vendor = "ROCm" if nvidia else "CUDA"
        yield finding(
            "build-vendor-mismatch",
            "error",
            f"{companion.name} {companion.version} is built for {vendor} but this host only has "
            f"{'NVIDIA' if nvidia else 'AMD'} GPUs: its compiled ops cannot load",
            f"Reinstall {companion.name} from the same index as torch (the build for your GPU vendor).",
            VENDOR_SOURCE,
            [
                ev(f"packages[{companion.name}].version", companion.version),
                ev(f"accelerators.{'nvidia' if nvidia else 'amd'}.devices[0].name", (nvidia or amd)[0].name),
            ],
        )
    rocm_env = (torch is not None and bool(torch.hip)) or (bool(amd) and not nvidia)
    if rocm_env:
        yield from _cuda_packages_under_rocm(snapshot)


def _cuda_packages_under_rocm(snapshot: Snapshot) -> Iterator[Finding]:
    patterns = knowledge.cuda_only_packages()
    packages: list[str] = []
    evidence = []
    source = VENDOR_SOURCE
    for package in snapshot.packages or ():
        parsed = version(package.version)
        if parsed is not None and not any(parsed.release):
            continue  # a 0.0.0a0 name-reservation placeholder on PyPI: it installs no CUDA library
        match = next((p for p in patterns if p.regex.search(canonicalize_name(package.name))), None)
        if match is not None:
            packages.append(package.name)
            evidence.append(ev(f"packages[{package.name}].version", package.version))
            source = match.source
    extensions = snapshot.extensions
    linked = [
        dist
        for dist in ((extensions.distributions or ()) if extensions is not None and extensions.ok else ())
        if tuple(dist.vendors) == ("cuda",)
    ]
    evidence += [ev(f"extensions.distributions[{d.name}].libraries", list(d.libraries)) for d in linked]
    names = packages + [d.name for d in linked]
    if not names:
        return
    more = f" and {len(names) - 4} more" if len(names) > 4 else ""
    fix = "Install the ROCm variants instead (e.g. onnxruntime-rocm, the jax ROCm plugin)"
    if packages:
        fix = f"Uninstall them (`pip uninstall {' '.join(packages)}`); install their ROCm variants instead"
    yield finding(
        "build-vendor-mismatch",
        "warning",
        f"CUDA-only packages in a ROCm environment: {', '.join(names[:4])}{more}",
        fix + (", and rebuild extensions that link only CUDA for ROCm." if linked else "."),
        source,
        evidence,
    )
