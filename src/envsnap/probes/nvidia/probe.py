"""The NVIDIA probe, and the opener of its live telemetry source, through NVML (nvidia-ml-py).

This is the only module that names NVML's error classes: it turns every answer that is not a
value into data. A missing library or unloaded driver is a ``skipped`` section; a
driver/library version mismatch, missing permissions or any other start failure is ``failed``
(the mismatch also sets ``library_version_mismatch`` for the rules); a call an old driver lacks
(``FunctionNotFound``) or a field a GPU doesn't have (``NotSupported``) is an absent field; a GPU
that fell off the bus is one device with status ``lost`` while the others are read normally.
When NVML cannot load at all but ``nvidia-smi`` runs, its ``-q -x`` XML is parsed instead.

NVML is initialised once per process (``_SESSION``), shared by the probe and the telemetry
source (nvml_telemetry.py), and shut down at exit; samples never re-initialise it. What is read
per GPU lives in nvml_fields.py. The NVML module (``pynvml`` by default) is injectable so tests
can replay recorded hardware through a fake with the same names.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import threading
import warnings
from dataclasses import dataclass
from typing import Any

import msgspec

from envsnap.errors import BadInput
from envsnap.probes.base import ProbeContext, TelemetrySource, read_text, run_command
from envsnap.probes.nvidia import nvml_fields
from envsnap.probes.nvidia.names import format_cuda_version
from envsnap.probes.nvidia.nvml_fields import DeviceGone
from envsnap.probes.nvidia.telemetry import NvmlTelemetry, Tracked
from envsnap.snapshot.model import DeviceSample, DeviceStatus, NvidiaDevice, NvidiaInfo, Status

LIBRARY_MISSING = "NVIDIA driver not installed (libnvidia-ml.so.1 not found)"
_SMI_TIMEOUT_S = 15.0
_INIT_WAIT_S = 20.0
_KERNEL_MODULE = re.compile(r"Kernel Module(?:\s+for\s+\S+)?\s+(\d+(?:\.\d+)+)")


@dataclass(frozen=True)
class NvidiaReading:
    """Static facts and one telemetry sample per device."""

    info: NvidiaInfo
    telemetry: tuple[DeviceSample, ...] = ()


class NvmlBusy(Exception):
    """Another thread is still inside ``nvmlInit``."""


class _NvmlSession:
    """Process-wide NVML initialisation: ``nvmlInit`` once, shut down at interpreter exit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started: Any = None
        self._exit_hook = False

    def start(self, nvml: Any, wait_s: float = _INIT_WAIT_S) -> None:
        """Initialise ``nvml`` unless it already is; raises its NVMLError when it can't start.

        A failure is not remembered: the driver may be loaded by the next attempt, and a failing
        ``nvmlInit`` costs under a millisecond. A hung ``nvmlInit`` in an abandoned probe thread
        holds the lock forever, so callers wait at most ``wait_s`` and get ``NvmlBusy``.
        """
        if not self._lock.acquire(timeout=wait_s):
            raise NvmlBusy(f"NVML initialisation has not returned after {wait_s:g} s (a hung driver?)")
        try:
            if self._started is nvml:
                return
            nvml.nvmlInit()
            self._started = nvml
            if not self._exit_hook:
                atexit.register(self.shutdown)
                self._exit_hook = True
        finally:
            self._lock.release()

    def shutdown(self) -> None:
        """``nvmlShutdown`` if started; safe to call twice or on a driver that is already gone."""
        with self._lock:
            nvml, self._started = self._started, None
        if nvml is not None:
            # At exit a driver that is already gone has nothing left to tell.
            with contextlib.suppress(Exception):
                nvml.nvmlShutdown()


_SESSION = _NvmlSession()


def load_nvml() -> Any | None:
    """Import nvidia-ml-py's ``pynvml`` (no driver needed to import); None when not installed."""
    with warnings.catch_warnings():
        # The deprecated PyPI "pynvml" shim warns on import; probes never print.
        warnings.simplefilter("ignore")
        try:
            import pynvml
        except ImportError:
            return None
    return pynvml


# ---------------------------------------------------------------------------- error mapping


def _start_failure(nvml: Any, err: Exception) -> tuple[Status, str, bool]:
    """Status, reason and version-mismatch flag for an ``nvmlInit`` failure."""
    if isinstance(err, nvml.NVMLError_LibraryNotFound):
        return "skipped", LIBRARY_MISSING, False
    if isinstance(err, nvml.NVMLError_DriverNotLoaded):
        return "skipped", "NVIDIA kernel module not loaded (NVML: Driver Not Loaded)", False
    if isinstance(err, nvml.NVMLError_LibRmVersionMismatch):
        return (
            "failed",
            "NVIDIA driver/library version mismatch: the loaded kernel module and libnvidia-ml.so differ "
            "(reboot, or reload the nvidia kernel module, after a driver upgrade)",
            True,
        )
    if isinstance(err, nvml.NVMLError_NoPermission):
        return "failed", "NVML: insufficient permissions to open the NVIDIA devices (/dev/nvidia*)", False
    return "failed", f"NVML failed to start: {err}", False


def _device_failure(nvml: Any, err: Exception) -> tuple[DeviceStatus, str]:
    """Status and reason for a GPU that cannot be read at all."""
    if isinstance(err, nvml.NVMLError_GpuIsLost):
        return (
            "lost",
            "GPU is lost: it stopped responding or fell off the bus (see dmesg for Xid 79; reset or reboot)",
        )
    if isinstance(err, nvml.NVMLError_ResetRequired):
        return "failed", "GPU requires a reset (nvidia-smi -r) or a reboot"
    if isinstance(err, nvml.NVMLError_NoPermission):
        return "failed", "no permission to open this GPU (/dev/nvidia*: device cgroup or container rules)"
    return "failed", f"NVML: {err}"


def _no_value_errors(nvml: Any) -> tuple[type[BaseException], ...]:
    """What a call may raise instead of a value: any NVMLError, and the error nvidia-ml-py's
    unversioned wrappers raise when the driver lacks the versioned symbol they forward to."""
    mismatch = getattr(nvml, "NVMLLibraryMismatchError", None)
    return (nvml.NVMLError,) if mismatch is None else (nvml.NVMLError, mismatch)


def _query_for(nvml: Any, handle: Any) -> nvml_fields.Query:
    """A Query on one handle: values pass through, every non-value answer becomes None."""

    no_value = _no_value_errors(nvml)

    def query(function: str, *args: Any, **kwargs: Any) -> Any:
        call = getattr(nvml, function, None)
        if call is None:  # an nvidia-ml-py older than the function
            return None
        try:
            return call(handle, *args, **kwargs)
        except (nvml.NVMLError_GpuIsLost, nvml.NVMLError_ResetRequired) as err:
            raise DeviceGone(*_device_failure(nvml, err)) from None
        except no_value:
            # NotSupported, FunctionNotFound (older driver), NoPermission, NotFound, Unknown: no value.
            return None

    return query


def _system_query(nvml: Any) -> nvml_fields.SystemQuery:
    no_value = _no_value_errors(nvml)

    def system(function: str, *args: Any) -> Any:
        call = getattr(nvml, function, None)
        if call is None:
            return None
        try:
            return call(*args)
        except no_value:
            return None

    return system


# ---------------------------------------------------------------------------- probe


def kernel_module_version(ctx: ProbeContext) -> str | None:
    """The loaded kernel module's version, which lags the library after an unrebooted upgrade.

    Reads ``/proc/driver/nvidia/version`` (both the proprietary "Kernel Module  535.54.03" and
    the open "Open Kernel Module for x86_64  565.57.01" forms), else ``/sys/module/nvidia/version``.
    """
    proc = read_text(ctx.path("/proc/driver/nvidia/version"))
    match = _KERNEL_MODULE.search(proc or "")
    if match:
        return match.group(1)
    module = (read_text(ctx.path("/sys/module/nvidia/version")) or "").strip()
    return module or None


def _read_device(
    nvml: Any, index: int, system: nvml_fields.SystemQuery, v2: int | None
) -> tuple[NvidiaDevice, DeviceSample]:
    """One handle pass over a GPU: static facts and one sample."""
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
    except nvml.NVMLError as err:
        status, reason = _device_failure(nvml, err)
        return (
            NvidiaDevice(index=index, status=status, reason=reason),
            DeviceSample(vendor="nvidia", index=index, status=status, reason=reason),
        )
    query = _query_for(nvml, handle)
    ident: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    try:
        ident = nvml_fields.identity(query)
        mem = nvml_fields.memory(query, v2)
        fields.update(nvml_fields.static_fields(query, mem))
        fields.update(nvml_fields.mig(query, lambda mig: _query_for(nvml, mig), v2))
        sample = nvml_fields.sample(query, system, index, ident, v2, mem)
    except DeviceGone as gone:
        # Keep what was read before the GPU went away: it says which GPU it was.
        return (
            NvidiaDevice(index=index, **ident, **fields, status=gone.status, reason=gone.reason),
            DeviceSample(vendor="nvidia", index=index, **ident, status=gone.status, reason=gone.reason),
        )
    return NvidiaDevice(index=index, **ident, **fields), sample


def _by_bus_id(pair: tuple[NvidiaDevice, DeviceSample]) -> tuple[bool, str, int]:
    device = pair[0]
    return (device.pci_bus_id is None, device.pci_bus_id or "", device.index)


def _read_all(nvml: Any, kernel: str | None) -> NvidiaReading:
    """Driver facts and every GPU, NVML already started.

    Command line equivalent: ``nvidia-smi -q``
    """
    system = _system_query(nvml)
    cuda = system("nvmlSystemGetCudaDriverVersion_v2")
    if cuda is None:
        cuda = system("nvmlSystemGetCudaDriverVersion")
    info = NvidiaInfo(
        status="ok",
        source="nvml",
        driver_version=nvml_fields.text(system("nvmlSystemGetDriverVersion")),
        nvml_version=nvml_fields.text(system("nvmlSystemGetNVMLVersion")),
        cuda_driver_version=format_cuda_version(int(cuda)) if cuda is not None else None,
        kernel_module_version=kernel,
    )
    try:
        count = int(nvml.nvmlDeviceGetCount())
    except nvml.NVMLError as err:
        return NvidiaReading(_replace(info, status="failed", reason=f"NVML could not count the GPUs: {err}"))
    v2 = getattr(nvml, "nvmlMemory_v2", None)
    pairs = sorted((_read_device(nvml, index, system, v2) for index in range(count)), key=_by_bus_id)
    return NvidiaReading(
        _replace(info, devices=tuple(device for device, _ in pairs)),
        tuple(sample for _, sample in pairs),
    )


def _replace(info: NvidiaInfo, **changes: Any) -> NvidiaInfo:
    return msgspec.structs.replace(info, **changes)


def _from_nvidia_smi(ctx: ProbeContext, kernel: str | None, reason: str) -> NvidiaReading:
    """Fallback when NVML can't load: ``nvidia-smi -q -x`` if it is on PATH, else the NVML reason."""
    unavailable = NvidiaInfo(status="skipped", reason=reason, kernel_module_version=kernel)
    executable = shutil.which("nvidia-smi", path=ctx.environ.get("PATH", os.defpath))
    if executable is None:
        return NvidiaReading(unavailable)
    result = run_command(
        [executable, "-q", "-x"], timeout_s=min(ctx.timeout_s, _SMI_TIMEOUT_S), env=ctx.environ
    )
    if result.returncode != 0:
        lines = [line.strip() for line in (result.stdout + "\n" + result.stderr).splitlines() if line.strip()]
        detail = result.error or (lines[0] if lines else f"exit status {result.returncode}")
        mismatch = "version mismatch" in detail.lower()
        return NvidiaReading(
            _replace(
                unavailable,
                status="failed" if mismatch else "skipped",
                reason=f"{reason}; nvidia-smi: {detail}",
                library_version_mismatch=True if mismatch else None,
            )
        )
    # Only the nvidia-smi fallback parses XML: `envsnap run`'s sampler never loads the parser.
    from envsnap.probes.nvidia import smi_xml as nvidia_smi_xml

    try:
        report = nvidia_smi_xml.parse(result.stdout, source="nvidia-smi")
    except BadInput as err:
        return NvidiaReading(_replace(unavailable, reason=f"{reason}; {err}"))
    return NvidiaReading(_replace(report.info, kernel_module_version=kernel), report.samples)


def probe(ctx: ProbeContext, nvml: Any | None = None) -> NvidiaReading:
    """Read the NVIDIA driver, every GPU and one telemetry sample.

    Args:
        ctx: the probe context (``root`` for /proc, ``environ`` for PATH of the fallback).
        nvml: an NVML module (``pynvml`` or a test double); imported lazily by default.

    Returns:
        The reading; never raises for a missing library, driver or device.
    """
    kernel = kernel_module_version(ctx)
    nvml = nvml if nvml is not None else load_nvml()
    if nvml is None:
        return _from_nvidia_smi(ctx, kernel, "nvidia-ml-py is not installed (import pynvml failed)")
    try:
        _SESSION.start(nvml)
    except NvmlBusy as busy:
        return NvidiaReading(
            NvidiaInfo(status="failed", reason=str(busy), source="nvml", kernel_module_version=kernel)
        )
    except nvml.NVMLError as err:
        status, reason, mismatch = _start_failure(nvml, err)
        if reason == LIBRARY_MISSING:
            if kernel is not None:
                reason = (
                    f"libnvidia-ml.so.1 not found although NVIDIA kernel module {kernel} is loaded "
                    "(the user-space driver is missing; in a container, use the NVIDIA container runtime)"
                )
            return _from_nvidia_smi(ctx, kernel, reason)
        info = NvidiaInfo(
            status=status,
            reason=reason,
            source="nvml",
            kernel_module_version=kernel,
            library_version_mismatch=True if mismatch else None,
        )
        return NvidiaReading(info)
    return _read_all(nvml, kernel)


def failed(reason: str) -> NvidiaReading:
    """The reading recorded when the probe cannot finish."""
    return NvidiaReading(NvidiaInfo(status="failed", reason=reason))


# ---------------------------------------------------------------------------- telemetry


def open_telemetry(ctx: ProbeContext | None = None, nvml: Any | None = None) -> TelemetrySource | None:
    """The NVML telemetry source, or None (never an exception) when NVML can't start or sees no GPU.

    Args:
        ctx: unused today; kept so every vendor's opener has the same signature.
        nvml: an NVML module (``pynvml`` or a test double); imported lazily by default.
    """
    del ctx
    nvml = nvml if nvml is not None else load_nvml()
    if nvml is None:
        return None
    try:
        _SESSION.start(nvml)
        count = int(nvml.nvmlDeviceGetCount())
    except (NvmlBusy, nvml.NVMLError):
        return None
    tracked: list[Tracked] = []
    for index in range(count):
        try:
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
        except nvml.NVMLError as err:
            status, reason = _device_failure(nvml, err)
            tracked.append(Tracked(index, None, status=status, reason=reason))
            continue
        try:
            tracked.append(Tracked(index, handle, nvml_fields.identity(_query_for(nvml, handle))))
        except DeviceGone as gone:
            tracked.append(Tracked(index, None, status=gone.status, reason=gone.reason))
    if not tracked:
        return None
    return NvmlTelemetry(
        lambda handle: _query_for(nvml, handle),
        _system_query(nvml),
        tracked,
        getattr(nvml, "nvmlMemory_v2", None),
    )
