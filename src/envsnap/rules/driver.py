"""Is the NVIDIA driver able to run the framework's CUDA, and is it in one piece? (B1.1–B1.4, B6.1)

Two ways a driver fails a stack: it is older than the CUDA runtime the framework was built with
(below the CUDA family floor nothing starts; between the floor and NVIDIA's Table 3 minimum things
run under minor-version compatibility but PTX JIT of newer PTX fails), or its kernel module and
user-space libraries come from different releases after an upgrade without a reboot.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from packaging.version import Version

from envsnap.rules import compat, facts, knowledge
from envsnap.rules.base import ev, finding, major_minor, rule, version
from envsnap.snapshot.model import Evidence, Finding, Severity, Snapshot

NVML_MISMATCH_SOURCE = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html"

_COMPAT_DIR = re.compile(r"(^|/)compat/?$")
_LIBCUDA_VERSION = re.compile(r"libcuda\.so\.(\d+\.\d+(?:\.\d+)?)$")
_JAX_PLUGIN = re.compile(r"^jax[-_]cuda(\d+)[-_](plugin|pjrt)\b", re.IGNORECASE)


@dataclass(frozen=True)
class CudaBuild:
    """A framework and the CUDA runtime it was built with."""

    framework: str
    cuda: str
    path: str


def cuda_builds(snapshot: Snapshot) -> list[CudaBuild]:
    """Every framework build in the snapshot that names its CUDA version."""
    builds = []
    torch = facts.torch(snapshot)
    if torch is not None and torch.cuda:
        builds.append(CudaBuild(facts.torch_label(snapshot), torch.cuda, "frameworks.torch.cuda"))
    fw = snapshot.frameworks
    tf = fw.tensorflow if fw is not None else None
    if tf is not None and tf.ok and tf.build_info and tf.build_info.get("cuda_version"):
        path = "frameworks.tensorflow.build_info.cuda_version"
        # a pasted build_info alone does not say TensorFlow's own version
        label = f"tensorflow {tf.version}" if tf.version else "tensorflow"
        builds.append(CudaBuild(label, tf.build_info["cuda_version"], path))
    jax = fw.jax if fw is not None else None
    for plugin in (jax.plugins or ()) if jax is not None and jax.ok else ():
        match = _JAX_PLUGIN.match(plugin)
        if match and match.group(2).lower() == "plugin":
            builds.append(CudaBuild(plugin.split("==")[0], match.group(1), "frameworks.jax.plugins"))
    return builds


def forward_compat(snapshot: Snapshot) -> tuple[list[Evidence], str | None]:
    """Evidence of a CUDA forward-compatibility libcuda, and its version when the file name says."""
    evidence = []
    compat_version = None
    ld_path = facts.variables(snapshot).get("LD_LIBRARY_PATH", "")
    if any(_COMPAT_DIR.search(entry) for entry in ld_path.split(":") if entry):
        evidence.append(ev("environment.variables.LD_LIBRARY_PATH", ld_path))
    torch = facts.torch(snapshot)
    for lib in (torch.loaded_libraries or ()) if torch is not None else ():
        if lib.name.startswith("libcuda.") and (lib.origin == "compat" or "/compat/" in lib.path):
            evidence.append(ev(f"frameworks.torch.loaded_libraries[{lib.name}].path", lib.path))
            match = _LIBCUDA_VERSION.search(lib.path)
            compat_version = match.group(1) if match else compat_version
    return evidence, compat_version


@rule("driver-too-old-for-cuda-build")
def driver_too_old(snapshot: Snapshot) -> Iterator[Finding]:
    """The framework's CUDA needs a newer driver than the installed one."""
    info = facts.nvidia(snapshot)
    if info is None:
        return
    driver = version(info.driver_version)
    windows = facts.is_windows(snapshot)
    compat_evidence, compat_version = forward_compat(snapshot)
    for build in cuda_builds(snapshot):
        needs = compat.driver_needs(build.cuda, windows=windows)
        if needs is None:
            continue
        evidence = [ev(build.path, build.cuda), ev("accelerators.nvidia.driver_version", info.driver_version)]
        if info.cuda_driver_version:
            evidence.append(ev("accelerators.nvidia.cuda_driver_version", info.cuda_driver_version))
        if driver is not None:
            found = _by_driver(snapshot, build, needs, driver, evidence, compat_evidence, compat_version)
        else:
            found = _by_cuda_ceiling(build, info.cuda_driver_version, evidence)
        if found is not None:
            yield found


def _by_driver(
    snapshot: Snapshot,
    build: CudaBuild,
    needs: compat.DriverNeeds,
    driver: Version,
    evidence: list[Evidence],
    compat_evidence: list[Evidence],
    compat_version: str | None,
) -> Finding | None:
    family = needs.cuda.split(".")[0]
    shown = _driver_text(snapshot) or str(driver)
    severity: Severity
    if needs.floor is not None and driver < needs.floor:
        severity = "error"
        title = (
            f"{build.framework} needs CUDA {needs.cuda}, but driver {shown} is below the CUDA {family}.x "
            f"minimum {needs.floor_text}: CUDA will not initialize"
        )
        source = needs.floor_source or ""
    elif needs.full is not None and driver < needs.full and int(family) < 11:
        # Minor-version compatibility started with CUDA 11: before it, below the minimum is no start.
        severity = "error"
        title = (
            f"{build.framework} needs CUDA {needs.cuda}, but driver {shown} is below its minimum "
            f"{needs.full_text} (CUDA {family}.x has no minor-version compatibility): "
            "CUDA will not initialize"
        )
        source = needs.full_source or ""
    elif needs.full is not None and driver < needs.full:
        severity = "warning"
        title = (
            f"{build.framework} uses CUDA {needs.cuda}; driver {shown} runs it only under minor-version "
            f"compatibility (full support from {needs.full_text}): PTX JIT of newer PTX fails"
        )
        source = needs.full_source or ""
    else:
        return None
    fix = f"Upgrade the NVIDIA driver to {needs.full_text or needs.floor_text} or newer"
    alternative = _older_build(snapshot, driver) if build.path.startswith("frameworks.torch") else None
    if alternative:
        fix += f", or install a torch build your driver runs: `{alternative}`"
    if compat_evidence:
        evidence = evidence + compat_evidence
        on_datacenter = all(
            knowledge.datacenter().regex.search(d.name or "") for d in facts.nvidia_devices(snapshot)
        )
        compat_note = f" (compat libcuda {compat_version})" if compat_version else ""
        if on_datacenter and severity == "error":
            severity = "warning"
            title = (
                f"{build.framework} needs CUDA {needs.cuda} above driver {shown}; it relies on the CUDA "
                f"forward-compatibility package{compat_note}"
            )
        fix += (
            ". Forward compatibility (a .../compat libcuda on LD_LIBRARY_PATH) works only on "
            "data-center GPUs and only when the compat package is newer than the driver"
        )
        source = knowledge.forward_compat_source()
    return finding("driver-too-old-for-cuda-build", severity, title, fix + ".", source, evidence)


def _driver_text(snapshot: Snapshot) -> str | None:
    info = facts.nvidia(snapshot)
    return info.driver_version if info is not None else None


def _older_build(snapshot: Snapshot, driver: Version) -> str | None:
    build = facts.torch_build(snapshot)
    if build is None:
        return None
    devices = facts.nvidia_ccs(snapshot)
    machine = snapshot.host.arch if snapshot.host and snapshot.host.arch else "x86_64"
    variant = compat.suggest_cuda_variant(
        build.release, driver=driver, devices=devices, machine=machine, windows=facts.is_windows(snapshot)
    )
    return compat.install_torch(build.release, variant) if variant and variant != build.variant else None


def _by_cuda_ceiling(build: CudaBuild, ceiling: str | None, evidence: list[Evidence]) -> Finding | None:
    """Without a driver version, compare with the newest CUDA the driver reports supporting."""
    have, need = major_minor(ceiling), major_minor(build.cuda)
    if have is None or need is None or have >= need:
        return None
    severity: Severity = "error" if need[0] > have[0] else "warning"
    title = f"{build.framework} uses CUDA {build.cuda}, but the driver supports CUDA up to {ceiling}"
    source = "https://docs.nvidia.com/deploy/cuda-compatibility/"
    fix = f"Upgrade the NVIDIA driver to one that supports CUDA {build.cuda} or newer."
    return finding("driver-too-old-for-cuda-build", severity, title, fix, source, evidence)


@rule("driver-too-old-for-cuda-toolkit")
def driver_too_old_for_toolkit(snapshot: Snapshot) -> Iterator[Finding]:
    """The system CUDA toolkit builds programs the installed driver cannot run (B1.1: nvcc builds).

    A warning, not an error: the toolkit compiles fine, and a framework bundling its own CUDA
    runtime is judged by driver-too-old-for-cuda-build. What fails is running what nvcc builds
    here (CUDA samples, JIT-built extensions linked against this toolkit's runtime).
    """
    info = facts.nvidia(snapshot)
    toolkit = snapshot.toolkits.cuda if snapshot.toolkits is not None else None
    if info is None or toolkit is None or not toolkit.ok or not toolkit.version:
        return
    driver = version(info.driver_version)
    needs = compat.driver_needs(toolkit.version, windows=facts.is_windows(snapshot))
    if driver is None or needs is None:
        return
    # Minor-version compatibility covers toolkit-built programs too: only below the family floor
    # (or, when the floor is unknown, below the Table 3 minimum) will they not start.
    limit, limit_text, source = needs.floor, needs.floor_text, needs.floor_source
    if limit is None:
        limit, limit_text, source = needs.full, needs.full_text, needs.full_source
    if limit is None or driver >= limit:
        return
    evidence = [
        ev("toolkits.cuda.version", toolkit.version),
        ev("toolkits.cuda.path", toolkit.path),
        ev("accelerators.nvidia.driver_version", info.driver_version),
    ]
    if info.cuda_driver_version:
        evidence.append(ev("accelerators.nvidia.cuda_driver_version", info.cuda_driver_version))
    family = needs.cuda.split(".")[0]
    title = (
        f"the CUDA {toolkit.version} toolkit builds programs driver {info.driver_version} cannot run "
        f"(CUDA {family}.x needs driver {limit_text} or newer)"
    )
    fix = (
        f"Upgrade the NVIDIA driver to {limit_text} or newer, or install a CUDA toolkit the driver runs"
        + (f" (CUDA {info.cuda_driver_version} or older)" if info.cuda_driver_version else "")
        + " and point `CUDA_HOME` at it."
    )
    yield finding("driver-too-old-for-cuda-toolkit", "warning", title, fix, source, evidence)


@rule("nvml-driver-library-mismatch")
def nvml_mismatch(snapshot: Snapshot) -> Iterator[Finding]:
    """Kernel module and user-space driver libraries come from different driver releases."""
    info = snapshot.accelerators.nvidia if snapshot.accelerators else None
    if info is None:
        return
    kernel, user = info.kernel_module_version, info.driver_version
    differ = kernel is not None and user is not None and kernel.strip() != user.strip()
    if not info.library_version_mismatch and not differ:
        return
    evidence = []
    if info.library_version_mismatch:
        evidence.append(ev("accelerators.nvidia.library_version_mismatch", True))
    if kernel is not None:
        evidence.append(ev("accelerators.nvidia.kernel_module_version", kernel))
    if user is not None:
        evidence.append(ev("accelerators.nvidia.driver_version", user))
    detail = f" (kernel module {kernel}, libraries {user})" if differ else ""
    yield finding(
        "nvml-driver-library-mismatch",
        "error",
        f"NVIDIA driver/library version mismatch{detail}: NVML and CUDA cannot start",
        "Reboot, or reload the driver modules with no GPU process running: "
        "`sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`.",
        NVML_MISMATCH_SOURCE,
        evidence,
    )
