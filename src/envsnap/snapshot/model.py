"""The snapshot model: the one typed, immutable description of a stack that every layer consumes.

Probes and importers build it; store.py writes and reads it; rules, diff, rollback and the
renderers only read it. Field names follow the "snapshot contract" in docs/design.md and are API:
other tools and tests key on them.

Conventions:
- Every optional field defaults to ``None``, and ``None`` means *unknown / not reported*; it is
  left out of the file. An empty tuple or ``False`` is a real observation and is written.
- Every probed section carries ``status`` (``ok`` | ``skipped`` | ``failed``) and, when not ok,
  ``reason``, so a diff can say "NVML became unavailable" instead of "the devices vanished".
- Names carry units: ``memory_total_bytes``, ``power_limit_watts``, ``temperature_c``.
- Versions are strings exactly as reported; compare them with ``packaging.version``.
- Static facts live in the sections; live metrics live in ``telemetry`` (a ``Sample``), which
  diff and fingerprint ignore by default.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

SCHEMA_VERSION = 2
"""Version of the snapshot file format written by this envsnap (2: ``meta.origin`` says which
report sections an import held, whether the paste was cut off, and the messages torch printed)."""

Status = Literal["ok", "skipped", "failed"]
DeviceStatus = Literal["ok", "lost", "failed"]
Severity = Literal["error", "warning", "info"]
Vendor = Literal["nvidia", "amd", "intel", "mps"]


class Model(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, forbid_unknown_fields=True):
    """Base of every persisted structure: frozen, keyword-only, ``None`` fields omitted."""


class Section(Model, frozen=True, kw_only=True):
    """A section filled by one probe: its outcome and, when not ok, why."""

    status: Status
    reason: str | None = None
    """Why the section is skipped or failed, e.g. "libnvidia-ml.so.1 not found"."""

    @property
    def ok(self) -> bool:
        """Whether the probe produced data."""
        return self.status == "ok"


# ---------------------------------------------------------------------------- meta


class ProbeRun(Model, frozen=True, kw_only=True):
    """How one probe went during a capture (volatile: durations change run to run)."""

    name: str
    status: Status
    duration_s: float
    reason: str | None = None


class ReportMessage(Model, frozen=True, kw_only=True):
    """A line a tool printed around a pasted report (a torch warning, an error): evidence the rules use."""

    kind: str
    """What the line says, e.g. ``driver-too-old``, ``no-kernel-image``, ``nvml-mismatch``."""
    text: str
    """The line as pasted (shortened to 300 characters)."""


class Origin(Model, frozen=True, kw_only=True):
    """Where the snapshot's data came from."""

    kind: Literal["probe", "import"]
    format: str | None = None
    """For imports: ``collect-env``, ``pip-freeze``, ``nvidia-smi-xml`` or ``auto`` (detected)."""
    file: str | None = None
    """For imports: the file read (``-`` for standard input)."""
    sections: tuple[str, ...] | None = None
    """For imports: the report sections found in the text, e.g. ``collect-env``, ``nvidia-smi``."""
    partial: bool | None = None
    """For imports: the paste was cut off; what it lacks is unknown, not absent."""
    missing: tuple[str, ...] | None = None
    """For a partial import: the sections the cut-off report lacks, e.g. "Versions of relevant libraries"."""
    messages: tuple[ReportMessage, ...] | None = None
    """For imports: warnings and errors printed around the report (torch, NVML), recognized by kind."""


class Meta(Model, frozen=True, kw_only=True):
    """Volatile facts about the capture itself; ignored by diff and fingerprint."""

    envsnap_version: str
    captured_at: str
    """UTC capture time, ISO 8601 with a ``Z`` suffix."""
    host_alias: str | None = None
    origin: Origin | None = None
    anonymized: bool | None = None
    probes: tuple[ProbeRun, ...] | None = None
    extension_scan_s: float | None = None
    """Wall time of the compiled-extension scan, seconds."""


# ---------------------------------------------------------------------------- host, python


class Host(Section, frozen=True, kw_only=True):
    """The machine and operating system."""

    hostname: str | None = None
    os_name: str | None = None
    """Distribution or OS name, e.g. "Debian GNU/Linux"."""
    os_version: str | None = None
    os_id: str | None = None
    """``ID`` from os-release, e.g. "debian", "ubuntu"; "windows", "macos" elsewhere."""
    kernel: str | None = None
    arch: str | None = None
    libc: str | None = None
    cpu_model: str | None = None
    cpu_physical_cores: int | None = None
    cpu_logical_cores: int | None = None
    memory_total_bytes: int | None = None
    container: str | None = None
    """``docker``, ``podman``, ``kubernetes``, ``lxc``, ``containerd``; absent on bare metal."""
    slurm: bool | None = None
    """Whether the capture ran inside a Slurm job."""
    wsl: bool | None = None


class ShadowedDistribution(Model, frozen=True, kw_only=True):
    """A second copy of a distribution later on ``sys.path``; Python never imports it."""

    name: str
    version: str
    location: str


class PythonEnv(Section, frozen=True, kw_only=True):
    """The target interpreter and its environment."""

    version: str | None = None
    implementation: str | None = None
    executable: str | None = None
    prefix: str | None = None
    base_prefix: str | None = None
    env_kind: Literal["venv", "conda", "system"] | None = None
    env_name: str | None = None
    site_packages: tuple[str, ...] | None = None
    shadowed: tuple[ShadowedDistribution, ...] | None = None


class PackageSource(Model, frozen=True, kw_only=True):
    """Where an installed distribution came from (PEP 610 ``direct_url.json``)."""

    kind: Literal["index", "vcs", "file", "url", "editable"]
    """``index``: no direct_url.json, so a package index (PyPI or another)."""
    url: str | None = None
    vcs: str | None = None
    commit_id: str | None = None
    requested_revision: str | None = None


class Package(Model, frozen=True, kw_only=True):
    """One installed distribution."""

    name: str
    """As written in the distribution's metadata (compare PEP 503-normalized)."""
    version: str
    """As installed; empty only when an imported report doesn't say (a ``pip freeze`` direct URL)."""
    installer: str | None = None
    """Content of the ``INSTALLER`` file: pip, uv, conda, ..."""
    source: PackageSource | None = None
    requires: tuple[str, ...] | None = None
    """``Requires-Dist`` lines, verbatim."""
    top_level: tuple[str, ...] | None = None
    """Top-level import names the distribution installs."""


class Environment(Section, frozen=True, kw_only=True):
    """Environment variables that change how ML stacks behave, secrets redacted."""

    variables: dict[str, str] | None = None


# ---------------------------------------------------------------------------- accelerators


class MigInstance(Model, frozen=True, kw_only=True):
    """A MIG device carved out of an NVIDIA GPU."""

    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None
    profile: str | None = None
    """E.g. "1g.10gb"."""
    uuid: str | None = None
    memory_total_bytes: int | None = None


class NvidiaDevice(Model, frozen=True, kw_only=True):
    """Static facts of one NVIDIA GPU."""

    index: int
    name: str | None = None
    uuid: str | None = None
    serial: str | None = None
    pci_bus_id: str | None = None
    """Normalized ``0000:3B:00.0`` form (domain:bus:device.function)."""
    compute_capability: str | None = None
    """E.g. "9.0"."""
    architecture: str | None = None
    memory_total_bytes: int | None = None
    bar1_total_bytes: int | None = None
    power_limit_watts: float | None = None
    max_graphics_clock_mhz: int | None = None
    max_sm_clock_mhz: int | None = None
    max_memory_clock_mhz: int | None = None
    pcie_link_gen_max: int | None = None
    pcie_link_width_max: int | None = None
    ecc_enabled: bool | None = None
    mig_enabled: bool | None = None
    mig_instances: tuple[MigInstance, ...] | None = None
    persistence_mode: bool | None = None
    compute_mode: str | None = None
    vbios_version: str | None = None
    board_part_number: str | None = None
    driver_model: str | None = None
    """Windows driver model: "WDDM", "TCC" or "MCDM"; absent on Linux."""
    status: DeviceStatus = "ok"
    reason: str | None = None


class NvidiaInfo(Section, frozen=True, kw_only=True):
    """NVIDIA driver and devices, from NVML (or ``nvidia-smi -q -x`` as a fallback)."""

    source: Literal["nvml", "nvidia-smi", "import"] | None = None
    driver_version: str | None = None
    nvml_version: str | None = None
    cuda_driver_version: str | None = None
    """The newest CUDA the driver supports, e.g. "12.4" (not an installed toolkit)."""
    kernel_module_version: str | None = None
    """From ``/proc/driver/nvidia/version``; differs from driver_version after an unrebooted upgrade."""
    library_version_mismatch: bool | None = None
    """NVML refused to start: "Driver/library version mismatch"."""
    devices: tuple[NvidiaDevice, ...] | None = None


class AmdDevice(Model, frozen=True, kw_only=True):
    """Static facts of one AMD GPU."""

    index: int
    name: str | None = None
    gfx_target: str | None = None
    """LLVM target, e.g. "gfx942"."""
    pci_bus_id: str | None = None
    device_id: str | None = None
    """PCI device id, e.g. "0x740f"."""
    uuid: str | None = None
    serial: str | None = None
    memory_total_bytes: int | None = None
    compute_units: int | None = None
    vbios_version: str | None = None
    status: DeviceStatus = "ok"
    reason: str | None = None


class AmdInfo(Section, frozen=True, kw_only=True):
    """AMD driver, ROCm and devices, from amdsmi or sysfs."""

    source: Literal["amdsmi", "sysfs", "import"] | None = None
    driver_version: str | None = None
    rocm_version: str | None = None
    devices: tuple[AmdDevice, ...] | None = None


class IntelDevice(Model, frozen=True, kw_only=True):
    """One Intel GPU."""

    index: int
    name: str | None = None
    pci_bus_id: str | None = None
    device_id: str | None = None
    driver: str | None = None
    """Kernel driver: ``i915`` or ``xe``."""
    memory_total_bytes: int | None = None


class IntelInfo(Section, frozen=True, kw_only=True):
    """Intel GPUs (sysfs) and what torch.xpu reports."""

    devices: tuple[IntelDevice, ...] | None = None


class MpsInfo(Section, frozen=True, kw_only=True):
    """Apple Metal Performance Shaders."""

    available: bool | None = None
    chip: str | None = None
    macos_version: str | None = None


class Accelerators(Model, frozen=True, kw_only=True):
    """Every accelerator vendor envsnap knows, each with its own status."""

    nvidia: NvidiaInfo | None = None
    amd: AmdInfo | None = None
    intel: IntelInfo | None = None
    mps: MpsInfo | None = None


# ---------------------------------------------------------------------------- toolkits


class ToolkitInstall(Model, frozen=True, kw_only=True):
    """One installed toolkit tree."""

    version: str | None = None
    path: str


class CudaToolkit(Section, frozen=True, kw_only=True):
    """The system CUDA toolkit (not what a framework bundles)."""

    nvcc_version: str | None = None
    """Full ``nvcc --version`` release, e.g. "13.0.88"."""
    version: str | None = None
    """Major.minor, e.g. "13.0"."""
    path: str | None = None
    cuda_home: str | None = None
    installations: tuple[ToolkitInstall, ...] | None = None


class LibraryInstall(Section, frozen=True, kw_only=True):
    """A system library such as cuDNN or NCCL."""

    version: str | None = None
    path: str | None = None


class RocmToolkit(Section, frozen=True, kw_only=True):
    """The system ROCm (or HIP) installation."""

    version: str | None = None
    path: str | None = None
    installations: tuple[ToolkitInstall, ...] | None = None


class Toolkits(Model, frozen=True, kw_only=True):
    """System toolkits and libraries, apart from what a framework bundles."""

    cuda: CudaToolkit | None = None
    cudnn: LibraryInstall | None = None
    nccl: LibraryInstall | None = None
    rocm: RocmToolkit | None = None
    hip: RocmToolkit | None = None


# ---------------------------------------------------------------------------- frameworks


class TorchAvailability(Model, frozen=True, kw_only=True):
    """What the torch build can use right now."""

    cuda: bool | None = None
    xpu: bool | None = None
    mps: bool | None = None


class TorchDevice(Model, frozen=True, kw_only=True):
    """A device as torch sees it (after CUDA_VISIBLE_DEVICES and friends)."""

    index: int
    type: str
    """``cuda`` (also ROCm), ``xpu`` or ``mps``."""
    name: str | None = None
    capability: str | None = None
    gcn_arch: str | None = None
    memory_total_bytes: int | None = None


class LoadedLibrary(Model, frozen=True, kw_only=True):
    """A CUDA/ROCm/oneAPI shared library mapped into the framework's process after import."""

    name: str
    path: str
    origin: Literal["wheel", "toolkit", "conda", "system", "compat", "other"]


class TorchInfo(Section, frozen=True, kw_only=True):
    """The installed PyTorch build."""

    version: str | None = None
    git_version: str | None = None
    debug: bool | None = None
    cuda: str | None = None
    """CUDA the build was made with (``torch.version.cuda``); null for CPU and ROCm builds."""
    hip: str | None = None
    xpu: str | None = None
    cudnn: str | None = None
    nccl: str | None = None
    miopen: str | None = None
    arch_list: tuple[str, ...] | None = None
    available: TorchAvailability | None = None
    devices: tuple[TorchDevice, ...] | None = None
    config: dict[str, str] | None = None
    """Relevant lines of ``torch.__config__.show()``: compiler, CUDA/ROCm arch flags, BLAS."""
    loaded_libraries: tuple[LoadedLibrary, ...] | None = None
    location: str | None = None
    errors: tuple[str, ...] | None = None
    """Questions that failed although torch imported, e.g. "calling torch.backends.cudnn.version(): ..."."""
    warnings: tuple[str, ...] | None = None
    """Python warnings raised while probing, e.g. "UserWarning: CUDA initialization: ..."."""


class JaxInfo(Section, frozen=True, kw_only=True):
    """JAX and jaxlib."""

    version: str | None = None
    jaxlib_version: str | None = None
    backend: str | None = None
    devices: tuple[str, ...] | None = None
    plugins: tuple[str, ...] | None = None
    """Installed CUDA/ROCm plugin distributions as ``name==version``."""
    errors: tuple[str, ...] | None = None
    """Questions that failed although jax imported, e.g. backend initialisation."""
    warnings: tuple[str, ...] | None = None


class TensorflowInfo(Section, frozen=True, kw_only=True):
    """TensorFlow's build info and visible GPUs."""

    version: str | None = None
    build_info: dict[str, str] | None = None
    gpus: tuple[str, ...] | None = None
    errors: tuple[str, ...] | None = None
    warnings: tuple[str, ...] | None = None


class OnnxruntimeInfo(Section, frozen=True, kw_only=True):
    """onnxruntime: which distribution, and which execution providers it was built with."""

    version: str | None = None
    distribution: str | None = None
    device: str | None = None
    providers: tuple[str, ...] | None = None
    distributions: tuple[str, ...] | None = None
    """Set when several distributions provide the package (``name==version``); they overwrite each other."""
    errors: tuple[str, ...] | None = None
    warnings: tuple[str, ...] | None = None


class CompanionBuild(Model, frozen=True, kw_only=True):
    """A library built against a framework (torchvision, torchaudio, triton, tensorrt, ...)."""

    name: str
    version: str
    cuda: str | None = None
    """CUDA the companion was built with, where it says (e.g. from ``+cu121``)."""
    hip: str | None = None


class Frameworks(Model, frozen=True, kw_only=True):
    """ML framework builds found in the target interpreter."""

    torch: TorchInfo | None = None
    jax: JaxInfo | None = None
    tensorflow: TensorflowInfo | None = None
    onnxruntime: OnnxruntimeInfo | None = None
    companions: tuple[CompanionBuild, ...] | None = None


# ---------------------------------------------------------------------------- extensions


class ExtensionDistribution(Model, frozen=True, kw_only=True):
    """A distribution whose compiled modules link against accelerator libraries."""

    name: str
    version: str | None = None
    vendors: tuple[str, ...]
    """``cuda``, ``rocm``, ``intel``."""
    libraries: tuple[str, ...]
    """Accelerator libraries named in DT_NEEDED, e.g. "libcudart.so.12"."""
    files: int
    """Number of ELF objects of the distribution that link them."""
    sm_archs: tuple[str, ...] | None = None
    """SM architectures found in embedded fatbins, e.g. "sm_80"."""
    runpaths: tuple[str, ...] | None = None
    """DT_RUNPATH/DT_RPATH entries of those objects, e.g. "$ORIGIN/../../nvidia/cublas/lib"."""


class Extensions(Section, frozen=True, kw_only=True):
    """Compiled extensions in site-packages and the accelerator stacks they need."""

    scanned_files: int | None = None
    distributions: tuple[ExtensionDistribution, ...] | None = None
    unreadable_files: tuple[str, ...] | None = None
    """ELF objects that could not be parsed (truncated, corrupt), relative to their site-packages."""


# ---------------------------------------------------------------------------- telemetry


class GpuProcess(Model, frozen=True, kw_only=True):
    """A process holding memory on a GPU (PIDs are the driver's, i.e. host PIDs)."""

    pid: int
    used_memory_bytes: int | None = None
    kind: Literal["compute", "graphics"] | None = None
    name: str | None = None


class DeviceSample(Model, frozen=True, kw_only=True):
    """Live metrics of one device at one instant."""

    vendor: Vendor
    index: int
    name: str | None = None
    pci_bus_id: str | None = None
    uuid: str | None = None
    status: DeviceStatus = "ok"
    reason: str | None = None
    memory_used_bytes: int | None = None
    memory_free_bytes: int | None = None
    memory_total_bytes: int | None = None
    gpu_util_percent: float | None = None
    memory_util_percent: float | None = None
    temperature_c: float | None = None
    power_draw_watts: float | None = None
    power_limit_watts: float | None = None
    graphics_clock_mhz: int | None = None
    sm_clock_mhz: int | None = None
    memory_clock_mhz: int | None = None
    fan_percent: float | None = None
    pcie_link_gen: int | None = None
    pcie_link_width: int | None = None
    throttle_reasons: tuple[str, ...] | None = None
    """Active clock-throttle reasons, e.g. "sw_power_cap", "hw_thermal_slowdown"."""
    ecc_errors_corrected: int | None = None
    ecc_errors_uncorrected: int | None = None
    retired_pages_pending: bool | None = None
    remapped_rows_pending: bool | None = None
    processes: tuple[GpuProcess, ...] | None = None


class Sample(Model, frozen=True, kw_only=True):
    """One reading of every device; the ``telemetry`` section of a snapshot is one of these."""

    captured_at: str
    devices: tuple[DeviceSample, ...] = ()
    errors: tuple[str, ...] | None = None
    """Backends that failed for this sample, e.g. "nvml: GPU is lost"."""


# ---------------------------------------------------------------------------- findings, changes


class Evidence(Model, frozen=True, kw_only=True):
    """A snapshot value a finding rests on."""

    path: str
    """Dotted path into the snapshot, e.g. "frameworks.torch.cuda"."""
    value: Any = None


class Finding(Model, frozen=True, kw_only=True):
    """Something wrong (or worth knowing) about a stack, with the evidence and a fix."""

    id: str
    severity: Severity
    title: str
    evidence: tuple[Evidence, ...] = ()
    fix: str
    source: str | None = None


class Change(Model, frozen=True, kw_only=True):
    """One difference between two snapshots."""

    layer: str
    path: str
    kind: Literal["added", "removed", "changed"]
    old: Any = None
    new: Any = None
    impact: Literal["breaking", "notable", "minor"]


# ---------------------------------------------------------------------------- snapshot


class Snapshot(Model, frozen=True, kw_only=True):
    """A whole stack at one moment. Field order is file order."""

    schema: int
    """File format version; always written (see SCHEMA_VERSION)."""
    meta: Meta
    fingerprint: str | None = None
    """``sha256:<hex>`` over the stable sections, host identity left out (see fingerprint.py)."""
    host: Host | None = None
    python: PythonEnv | None = None
    packages: tuple[Package, ...] | None = None
    environment: Environment | None = None
    accelerators: Accelerators | None = None
    toolkits: Toolkits | None = None
    frameworks: Frameworks | None = None
    extensions: Extensions | None = None
    telemetry: Sample | None = None
    findings: tuple[Finding, ...] | None = None


STABLE_SECTIONS = (
    "host",
    "python",
    "packages",
    "environment",
    "accelerators",
    "toolkits",
    "frameworks",
    "extensions",
)
"""Sections that describe the stack; ``meta``, ``telemetry`` and ``findings`` are excluded."""
