"""AMD GPUs through AMD's ``amdsmi`` Python library: the only module that calls ``amdsmi_*``.

amdsmi is loaded lazily and initialised once per process (``AmdSmiSession``), then shared by the
snapshot probe and the live telemetry source. Loading it is hostile on a host without ROCm:
``import amdsmi`` prints two lines to stdout and raises ``KeyError: 'libamd_smi.so'`` (not
ImportError), and a library missing a symbol raises AttributeError. So the import runs with stdout
captured and any exception becomes a reason, never a crash or stray output.

Per-field ``AmdSmiException`` answers (``AMDSMI_STATUS_NOT_SUPPORTED`` and friends) and ``"N/A"``
values mean *absent*, not failure, as amd-smi itself prints them. Units, from amdsmi.h: memory
totals and usage in bytes, ``vram_size`` in MB, temperatures in °C, socket power in W, power caps
in µW.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import io
import re
import threading
from collections.abc import Callable
from typing import Any

from envsnap.probes.amd.gfx import normalize_gfx_name
from envsnap.probes.drm import normalize_pci_bus_id
from envsnap.snapshot.model import AmdDevice, DeviceSample, GpuProcess

_KERNEL_BANNER = re.compile(r"^Linuxversion(\S+?)\(")


class AmdSmiUnavailable(Exception):
    """amdsmi cannot be imported or initialised; the message is the reason recorded."""


def import_amdsmi() -> Any:
    """Import the ``amdsmi`` module with its stdout chatter captured.

    Returns:
        The module.

    Raises:
        AmdSmiUnavailable: with a one-line reason, whatever the import raised.
    """
    chatter = io.StringIO()
    try:
        with contextlib.redirect_stdout(chatter):
            return importlib.import_module("amdsmi")
    except ModuleNotFoundError as err:
        if err.name == "amdsmi":
            raise AmdSmiUnavailable("amdsmi not installed") from err
        raise AmdSmiUnavailable(f"amdsmi import failed: {err}") from err
    except KeyError as err:  # the binding looks libamd_smi.so up in a dict it failed to fill
        raise AmdSmiUnavailable(
            f"amdsmi: {err.args[0] if err.args else err} not found (ROCm not installed?)"
        ) from err
    except Exception as err:
        raise AmdSmiUnavailable(f"amdsmi import failed: {type(err).__name__}: {err}") from err


class AmdSmiSession:
    """amdsmi, imported and initialised at most once, shared by every reader in the process."""

    def __init__(self, loader: Callable[[], Any] = import_amdsmi) -> None:
        self._loader = loader
        self._lock = threading.Lock()
        self._state: tuple[Any, str | None] | None = None

    def open(self) -> tuple[Any, str | None]:
        """The initialised module, or None and the reason it is unusable (cached after the first call)."""
        with self._lock:
            if self._state is None:
                self._state = self._start()
            return self._state

    def _start(self) -> tuple[Any, str | None]:
        try:
            smi = self._loader()
        except AmdSmiUnavailable as err:
            return None, str(err)
        except Exception as err:  # a loader is foreign code: any failure is a reason
            return None, f"amdsmi import failed: {type(err).__name__}: {err}"
        try:
            smi.amdsmi_init()
        except Exception as err:  # AmdSmiLibraryException: driver not loaded, no permission...
            return None, f"amdsmi_init failed: {_one_line(err)}"
        atexit.register(_shut_down, smi)
        return smi, None

    def handles(self) -> tuple[Any, ...]:
        """GPU processor handles; empty when amdsmi is unusable or sees no GPU."""
        smi, _ = self.open()
        if smi is None:
            return ()
        try:
            return tuple(smi.amdsmi_get_processor_handles())
        except Exception:  # no GPU visible to the library
            return ()


def _shut_down(smi: Any) -> None:
    with contextlib.suppress(Exception):
        smi.amdsmi_shut_down()


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split()) or type(err).__name__


_DEFAULT = AmdSmiSession()


def default_session() -> AmdSmiSession:
    """The process-wide session on the real ``amdsmi`` module."""
    return _DEFAULT


class _Reader:
    """Calls amdsmi functions, turning unsupported fields and missing functions into None."""

    def __init__(self, smi: Any) -> None:
        self.smi = smi
        self._errors: tuple[type[BaseException], ...] = (getattr(smi, "AmdSmiException", Exception),)

    def get(self, function: str, *args: Any) -> Any:
        call = getattr(self.smi, function, None)
        if call is None:  # an older amdsmi without this query
            return None
        try:
            return call(*args)
        except self._errors:
            return None

    def enum(self, enum_name: str, member: str) -> Any:
        return getattr(getattr(self.smi, enum_name, None), member, None)


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    value = value.strip()
    return None if value in ("", "N/A") else value


def _number(value: Any) -> float | None:
    """A numeric amdsmi value; None for "N/A", missing values and non-numbers."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def _percent(value: Any) -> float | None:
    """A utilization; amdsmi marks an unsupported engine with 0xFFFF (or "N/A")."""
    number = _number(value)
    return number if number is not None and 0 <= number <= 100 else None


def _int(value: Any) -> int | None:
    number = _number(value)
    return None if number is None else int(number)


def driver_version_text(text: str | None) -> str | None:
    """The driver version as amdsmi reports it, with the in-tree kernel banner reduced to the release.

    With amdgpu built into the kernel, some amdsmi versions return ``/proc/version`` with every
    space removed (``Linuxversion6.14.0-24-generic(buildd@...)...``, seen in the MI210 fixture).
    """
    text = _text(text)
    if text is None:
        return None
    match = _KERNEL_BANNER.match(text)
    return match.group(1) if match else text


def _memory_total(reader: _Reader, handle: Any) -> int | None:
    vram = reader.enum("AmdSmiMemoryType", "VRAM")
    total = _int(reader.get("amdsmi_get_gpu_memory_total", handle, vram)) if vram is not None else None
    if total is not None:
        return total
    size_mb = _int((reader.get("amdsmi_get_gpu_vram_info", handle) or {}).get("vram_size"))
    return size_mb * 1024 * 1024 if size_mb else None


def read_device(reader: _Reader, index: int, handle: Any) -> AmdDevice:
    """Static facts of one GPU (``amd-smi static``)."""
    asic = reader.get("amdsmi_get_gpu_asic_info", handle) or {}
    bdf = reader.get("amdsmi_get_gpu_device_bdf", handle)
    vbios = reader.get("amdsmi_get_gpu_vbios_info", handle) or {}
    board = reader.get("amdsmi_get_gpu_board_info", handle) or {}
    serial = _text(board.get("product_serial"))
    device_id = _text(asic.get("device_id"))
    return AmdDevice(
        index=index,
        name=_text(asic.get("market_name")),
        gfx_target=normalize_gfx_name(_text(asic.get("target_graphics_version"))),
        pci_bus_id=normalize_pci_bus_id(bdf if isinstance(bdf, str) else None),
        device_id=device_id.lower() if device_id else None,
        uuid=_text(reader.get("amdsmi_get_gpu_device_uuid", handle)),
        serial=None if serial == "0" else serial,  # "0" is what boards without a FRU serial report
        memory_total_bytes=_memory_total(reader, handle),
        compute_units=_int(asic.get("num_compute_units")),
        vbios_version=_text(vbios.get("version")) or _text(vbios.get("part_number")),
    )


def _temperature_c(reader: _Reader, handle: Any) -> float | None:
    current = reader.enum("AmdSmiTemperatureMetric", "CURRENT")
    for sensor in ("EDGE", "HOTSPOT"):  # MI300 parts have no edge sensor
        kind = reader.enum("AmdSmiTemperatureType", sensor)
        if kind is not None and current is not None:
            value = _number(reader.get("amdsmi_get_temp_metric", handle, kind, current))
            if value is not None:
                return value
    return None


def _power_watts(reader: _Reader, handle: Any) -> tuple[float | None, float | None]:
    power = reader.get("amdsmi_get_power_info", handle) or {}
    # MI300+ fill current_socket_power, MI200 and Radeon average_socket_power; amdsmi 7 socket_power.
    keys = ("current_socket_power", "average_socket_power", "socket_power")
    # Unsupported members come back as UINT16/UINT32 max, which no GPU draws in watts.
    draw = next((v for v in (_number(power.get(k)) for k in keys) if v is not None and v < 0xFFFF), None)
    cap_uw = _number((reader.get("amdsmi_get_power_cap_info", handle) or {}).get("power_cap"))
    return draw, None if not cap_uw else cap_uw / 1_000_000


def _processes(reader: _Reader, handle: Any) -> tuple[GpuProcess, ...] | None:
    listed = reader.get("amdsmi_get_gpu_process_list", handle)
    if not isinstance(listed, list):
        return None
    processes = []
    for entry in listed:
        if not isinstance(entry, dict) or _int(entry.get("pid")) is None:
            continue  # amdsmi < 6.1 returned opaque handles: nothing to show without more calls
        vram = _int((entry.get("memory_usage") or {}).get("vram_mem"))
        processes.append(
            GpuProcess(
                pid=int(entry["pid"]),
                used_memory_bytes=vram if vram is not None else _int(entry.get("mem")),
                kind="compute",
                name=_text(entry.get("name")),
            )
        )
    return tuple(sorted(processes, key=lambda p: p.pid))


def read_sample(reader: _Reader, device: AmdDevice, handle: Any) -> DeviceSample:
    """Live metrics of one GPU (``amd-smi metric``)."""
    vram = reader.enum("AmdSmiMemoryType", "VRAM")
    used = _int(reader.get("amdsmi_get_gpu_memory_usage", handle, vram)) if vram is not None else None
    total = device.memory_total_bytes
    activity = reader.get("amdsmi_get_gpu_activity", handle) or {}
    draw, cap = _power_watts(reader, handle)
    return DeviceSample(
        vendor="amd",
        index=device.index,
        name=device.name,
        pci_bus_id=device.pci_bus_id,
        uuid=device.uuid,
        memory_used_bytes=used,
        memory_free_bytes=total - used if total is not None and used is not None else None,
        memory_total_bytes=total,
        gpu_util_percent=_percent(activity.get("gfx_activity")),
        memory_util_percent=_percent(activity.get("umc_activity")),
        temperature_c=_temperature_c(reader, handle),
        power_draw_watts=draw,
        power_limit_watts=cap,
        processes=_processes(reader, handle),
    )


def read_all(session: AmdSmiSession) -> tuple[tuple[AmdDevice, ...], tuple[DeviceSample, ...], str | None]:
    """Devices, one sample each, and the driver version, for every GPU amdsmi sees."""
    smi, _ = session.open()
    reader = _Reader(smi)
    devices, samples = [], []
    driver: str | None = None
    for index, handle in enumerate(session.handles()):
        device = read_device(reader, index, handle)
        devices.append(device)
        samples.append(read_sample(reader, device, handle))
        if driver is None:
            driver = driver_version_text(
                (reader.get("amdsmi_get_gpu_driver_info", handle) or {}).get("driver_version")
            )
    return tuple(devices), tuple(samples), driver


def rocm_version(session: AmdSmiSession) -> str | None:
    """ROCm version from rocm-core through amdsmi (``amd-smi version``), when the library offers it."""
    smi, _ = session.open()
    answer = _Reader(smi).get("amdsmi_get_rocm_version") if smi is not None else None
    if isinstance(answer, tuple) and len(answer) == 2 and answer[0] is True:
        return _text(answer[1])
    return None


class AmdSmiTelemetry:
    """Live AMD telemetry through amdsmi; handles and static facts are read once, at open."""

    name = "amdsmi"

    def __init__(self, session: AmdSmiSession) -> None:
        smi, _ = session.open()
        self._reader = _Reader(smi)
        self._targets = [(read_device(self._reader, i, h), h) for i, h in enumerate(session.handles())]

    def driver_version(self) -> str | None:
        """The amdgpu driver amdsmi reports for the first GPU, for ``envsnap gpus``' header line."""
        if not self._targets:
            return None
        info = self._reader.get("amdsmi_get_gpu_driver_info", self._targets[0][1]) or {}
        return driver_version_text(info.get("driver_version"))

    def read(self) -> tuple[DeviceSample, ...]:
        """One sample of every GPU."""
        return tuple(read_sample(self._reader, device, handle) for device, handle in self._targets)

    def close(self) -> None:
        """Drops the handles; amdsmi itself stays initialised for the process (shut down at exit)."""
        self._targets = []
