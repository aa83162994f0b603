"""Facts read from a paste (evidence.py) turned into the snapshot sections they pin down.

A fact is taken as far as the text pins it down and no further: a torch version with no CUDA says
nothing about the build; a PyPI torch next to the ``nvidia-*-cuXX`` wheels it pulled in is that CUDA.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from envsnap.importers.base import ImportedSections
from envsnap.importers.evidence import AMD_UNNAMED, Fact
from envsnap.importers.package_lists import torch_of_wheel
from envsnap.rules import knowledge
from envsnap.snapshot.model import (
    Accelerators,
    AmdDevice,
    AmdInfo,
    CudaToolkit,
    Frameworks,
    Host,
    IntelDevice,
    IntelInfo,
    JaxInfo,
    LibraryInstall,
    MpsInfo,
    NvidiaDevice,
    NvidiaInfo,
    Package,
    PythonEnv,
    RocmToolkit,
    Toolkits,
    TorchAvailability,
    TorchInfo,
)


def _first(facts: Iterable[Fact], kind: str) -> Fact | None:
    return next((f for f in facts if f.kind == kind), None)


def _torch(facts: list[Fact]) -> TorchInfo | None:
    """The torch build the facts pin down: a version with its wheel tag, or with torch's CUDA stated."""
    versions = [f for f in facts if f.kind == "torch" or (f.kind == "package" and f.detail == "torch")]
    tagged = next((f for f in versions if "+" in f.value), None)
    cuda = _first(facts, "torch-cuda") or _pypi_cuda(facts, versions)
    available = _first(facts, "cuda-available")
    if available is None and _first(facts, "cuda-in-use") is not None:
        available = Fact("cuda-available", "yes", 0)
    info = torch_of_wheel(tagged.value) if tagged else None
    if info is None and cuda is not None:
        version = versions[0].value if versions else None
        info = TorchInfo(status="ok", version=version, cuda=cuda.value)
    if info is None:
        return None
    if cuda is not None and info.cuda is None and info.hip is None and "+cpu" not in (info.version or ""):
        info = TorchInfo(status="ok", version=info.version, cuda=cuda.value)
    if available is not None:
        info = TorchInfo(
            status="ok",
            version=info.version,
            cuda=info.cuda,
            hip=info.hip,
            available=TorchAvailability(cuda=available.value == "yes"),
        )
    arch = _first(facts, "torch-arch")
    if arch is not None and info.cuda:
        info = msgspec.structs.replace(info, arch_list=tuple(arch.value.split()))
    return info


def _pypi_cuda(facts: list[Fact], versions: list[Fact]) -> Fact | None:
    """torch's CUDA when ``pip show torch`` requires the nvidia-*-cuXX wheels: PyPI's build of it."""
    requires = _first(facts, "torch-requires-cuda")
    if requires is None or not versions:
        return None
    cuda = knowledge.pypi_torch_cuda(versions[0].value)
    if cuda is None or cuda.split(".")[0] != requires.value:
        return None
    return Fact("torch-cuda", cuda, requires.line)


def _devices(facts: list[Fact]) -> list[NvidiaDevice]:
    devices: dict[str, NvidiaDevice] = {}
    for fact in facts:
        if fact.kind != "gpu" or fact.value in devices:
            continue
        devices[fact.value] = NvidiaDevice(
            index=len(devices), name=fact.value, compute_capability=fact.detail or None
        )
    if not devices and _first(facts, "nvidia-driver-present") is not None:
        return [NvidiaDevice(index=0)]  # SD.Next says "nVidia CUDA toolkit detected" when nvidia-smi runs
    if len(devices) == 1:
        cc = _first(facts, "cc")
        only = next(iter(devices.values()))
        if cc is not None and only.compute_capability is None:
            devices[only.name or ""] = NvidiaDevice(index=0, name=only.name, compute_capability=cc.value)
    return list(devices.values())


def _amd(facts: list[Fact]) -> AmdInfo | None:
    """AMD GPUs a paste names (a Radeon in a GPU field, a gfx target beside "AMD"/"Radeon"), so a vendor
    check has the host's GPU vendor to go by: one device per product name; a lone name takes the lone
    gfx target said beside it (a log's "AMD arch: gfx1030" and "Device: AMD Radeon RX 6800 XT" are one
    GPU); targets with no name are a device each."""
    said = [f for f in facts if f.kind == "amd-gpu"]
    names = list(dict.fromkeys(f.value for f in said if f.value != AMD_UNNAMED))
    targets = list(dict.fromkeys(f.detail for f in said if f.detail))
    if not names and not targets:
        return None
    if len(names) <= 1 and len(targets) <= 1:
        pairs = [(names[0] if names else AMD_UNNAMED, targets[0] if targets else None)]
    else:
        named = {f.value: f.detail or None for f in said if f.value != AMD_UNNAMED}
        pairs = [(name, named[name]) for name in names]
        pairs += [(AMD_UNNAMED, gfx) for gfx in targets if gfx not in named.values()]
    devices = tuple(AmdDevice(index=i, name=name, gfx_target=gfx) for i, (name, gfx) in enumerate(pairs))
    return AmdInfo(status="ok", source="import", devices=devices)


def _intel(facts: list[Fact]) -> IntelInfo | None:
    """Intel GPUs a paste lists (xpu-smi discovery, ggml's Vulkan devices), one per name."""
    names = list(dict.fromkeys(f.value for f in facts if f.kind == "intel-gpu"))
    if not names:
        return None
    return IntelInfo(status="ok", devices=tuple(IntelDevice(index=i, name=n) for i, n in enumerate(names)))


def _mps(facts: list[Fact]) -> MpsInfo | None:
    """A Mac's Metal GPU: an Apple silicon GPU named, another model (``system_profiler``'s Chipset Model)
    with its Metal support stated, or torch's answer about MPS. The chip is named only for Apple silicon
    (an Intel Mac's Radeon is not the chip the probe records)."""
    gpu = _first(facts, "mac-gpu")
    apple = gpu is not None and gpu.value.startswith("Apple M")
    available = _first(facts, "mps-available")
    if not apple and (gpu is None or _first(facts, "metal") is None) and available is None:
        return None
    return MpsInfo(
        status="ok",
        chip=gpu.value if gpu is not None and gpu.value.startswith("Apple ") else None,
        available=None if available is None else available.value == "yes",
    )


def _rocm(facts: list[Fact]) -> RocmToolkit | None:
    """The ROCm install hipconfig shows: its path, and its release when the path or HIP's version says it."""
    path = _first(facts, "rocm-path")
    release = next((f.detail for f in facts if f.kind == "rocm-path" and f.detail), None)
    said = _first(facts, "rocm")
    if path is None and said is None and _first(facts, "hip") is None:
        return None  # an old HIP's version alone ("HIP version : 1.4.0") still says ROCm is installed
    return RocmToolkit(
        status="ok", version=release or (said.value if said else None), path=path.value if path else None
    )


def _cudnn(facts: list[Fact]) -> LibraryInstall | None:
    """The system cuDNN the loader finds (``ldconfig -p`` rows): its newest soname major."""
    rows = [f for f in facts if f.kind == "cudnn"]
    if not rows:
        return None
    newest = max(rows, key=lambda f: int(f.value))
    return LibraryInstall(status="ok", version=newest.value, path=newest.detail or None)


def _packages(facts: list[Fact]) -> tuple[Package, ...] | None:
    packages: dict[str, Package] = {}
    for fact in facts:
        if fact.kind == "package" and fact.detail:
            key = fact.detail.lower().replace("_", "-")
            packages.setdefault(key, Package(name=fact.detail, version=fact.value))
    return tuple(packages.values()) or None


def _jax(facts: list[Fact]) -> JaxInfo | None:
    """jax on the CPU because jaxlib has no CUDA, when jax's own fallback line says so."""
    fallback = _first(facts, "jax-cpu-fallback")
    if fallback is None:
        return None
    jax = next((f for f in facts if f.kind == "package" and f.detail == "jax"), None)
    jaxlib = next((f for f in facts if f.kind == "package" and f.detail == "jaxlib"), None)
    if _first(facts, "jax-cuda-build") is not None or (jaxlib is not None and "+cuda" in jaxlib.value):
        # with a CUDA build in the paste the line reports that build failing, not a CPU-only jaxlib
        return None
    return JaxInfo(
        status="ok",
        version=jax.value if jax else None,
        jaxlib_version=jaxlib.value if jaxlib else None,
        backend="cpu",
        warnings=(fallback.value,),
    )


def sections(facts: list[Fact]) -> ImportedSections | None:
    """What the facts say as snapshot sections (None when they say nothing the rules read)."""
    torch = _torch(facts)
    devices = _devices(facts)
    driver = _first(facts, "driver")
    api = _first(facts, "cuda-driver")
    nvidia = None
    if devices or driver or api:
        nvidia = NvidiaInfo(
            status="ok",
            source="import",
            driver_version=driver.value if driver else None,
            cuda_driver_version=api.value if api else None,
            devices=tuple(devices) or None,
        )
    # a CUDA_HOME named by its version is the toolkit extensions build with, when no nvcc line says one
    nvcc = _first(facts, "nvcc") or _first(facts, "cuda-home")
    cuda = None
    if nvcc is not None:
        short = ".".join(nvcc.value.split(".")[:2])
        cuda = CudaToolkit(status="ok", nvcc_version=nvcc.value, version=short)
    rocm = _rocm(facts)
    cudnn = _cudnn(facts)
    toolkits = (
        Toolkits(cuda=cuda, rocm=rocm, cudnn=cudnn)
        if cuda is not None or rocm is not None or cudnn is not None
        else None
    )
    python = _first(facts, "python")
    os_name = _first(facts, "os")
    jax = _jax(facts)
    amd = _amd(facts)
    intel = _intel(facts)
    mps = _mps(facts)
    parts = ImportedSections(
        host=Host(status="ok", os_name=os_name.value) if os_name else None,
        python=PythonEnv(status="ok", version=python.value) if python else None,
        packages=_packages(facts),
        accelerators=(
            Accelerators(nvidia=nvidia, amd=amd, intel=intel, mps=mps)
            if nvidia is not None or amd is not None or intel is not None or mps is not None
            else None
        ),
        toolkits=toolkits,
        frameworks=Frameworks(torch=torch, jax=jax) if torch is not None or jax is not None else None,
    )
    return None if parts == ImportedSections() else parts
