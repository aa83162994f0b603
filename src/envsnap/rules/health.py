"""GPU health from the telemetry sample: memory errors, throttling, degraded links, lost GPUs.

These are the hardware-side reasons a correct stack still trains slowly or crashes: uncorrectable
ECC errors and pending page retirements (the GPU needs a reset), clocks held down by heat or a
power brake, a PCIe link stuck below its generation/width while the GPU is busy (at idle links
downshift on purpose, so idle samples are not judged), a GPU that fell off the bus, and persistence
mode off on a data-center GPU (slow first CUDA init, state lost between jobs).
"""

from __future__ import annotations

from collections.abc import Iterator

from envsnap.rules import facts, knowledge
from envsnap.rules.base import ev, finding, rule
from envsnap.rules.knowledge import ThrottleReason
from envsnap.snapshot.model import DeviceSample, Finding, NvidiaDevice, Severity, Snapshot

ID = "gpu-health"
ECC_SOURCE = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"
XID_SOURCE = "https://docs.nvidia.com/deploy/xid-errors/index.html"


def _static(snapshot: Snapshot, sample: DeviceSample) -> NvidiaDevice | None:
    """The NVIDIA device a telemetry sample belongs to (by bus id, UUID, then index)."""
    if sample.vendor != "nvidia":
        return None
    devices = facts.nvidia_devices(snapshot)
    for key in ("pci_bus_id", "uuid"):
        wanted = getattr(sample, key)
        if wanted:
            hit = next((d for d in devices if (getattr(d, key) or "").lower() == wanted.lower()), None)
            if hit is not None:
                return hit
    return next((d for d in devices if d.index == sample.index), None)


@rule(ID)
def telemetry_health(snapshot: Snapshot) -> Iterator[Finding]:
    """Problems visible in one telemetry sample, one finding per device and kind."""
    telemetry = snapshot.telemetry
    for sample in telemetry.devices if telemetry is not None else ():
        where = f"telemetry.devices[{sample.index}]"
        label = f"GPU {sample.index} ({sample.name or sample.vendor})"
        if sample.status == "lost":
            yield finding(
                ID,
                "error",
                f"{label} is lost: {sample.reason or 'the driver cannot reach it'}",
                "Drain the node and reset the GPU (`nvidia-smi -r -i <index>`) or reboot; "
                "check the kernel log "
                "for Xid 79 ('fallen off the bus').",
                XID_SOURCE,
                [ev(f"{where}.status", sample.status)],
            )
            continue
        yield from _memory_errors(sample, where, label)
        yield from _throttling(sample, where, label)
        yield from _pcie(snapshot, sample, where, label)


def _memory_errors(sample: DeviceSample, where: str, label: str) -> Iterator[Finding]:
    if sample.ecc_errors_uncorrected:
        yield finding(
            ID,
            "warning",
            f"{label} reported {sample.ecc_errors_uncorrected} uncorrectable ECC error(s) "
            "since the driver loaded",
            "Drain running jobs and reset the GPU; if the count keeps growing, have the board checked "
            "(`nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER`).",
            ECC_SOURCE,
            [ev(f"{where}.ecc_errors_uncorrected", sample.ecc_errors_uncorrected)],
        )
    pending = [k for k in ("retired_pages_pending", "remapped_rows_pending") if getattr(sample, k)]
    if pending:
        yield finding(
            ID,
            "warning",
            f"{label} has {' and '.join(p.replace('_', ' ') for p in pending)}: "
            "the repair takes effect only after a "
            "GPU reset",
            "Reset the GPU when it is idle (`sudo nvidia-smi -r -i <index>`) or reboot the node.",
            ECC_SOURCE,
            [ev(f"{where}.{k}", True) for k in pending],
        )


def _throttling(sample: DeviceSample, where: str, label: str) -> Iterator[Finding]:
    table = knowledge.throttle_reasons()
    active = [table[r] for r in sample.throttle_reasons or () if r in table]
    if not active:
        return
    severity: Severity = "warning" if any(r.severity == "warning" for r in active) else "info"
    meanings = "; ".join(dict.fromkeys(r.meaning for r in active))
    evidence = [ev(f"{where}.throttle_reasons", list(sample.throttle_reasons or ()))]
    if sample.temperature_c is not None:
        evidence.append(ev(f"{where}.temperature_c", sample.temperature_c))
    if sample.power_draw_watts is not None:
        evidence.append(ev(f"{where}.power_draw_watts", sample.power_draw_watts))
    if sample.power_limit_watts is not None:
        evidence.append(ev(f"{where}.power_limit_watts", sample.power_limit_watts))
    yield finding(
        ID,
        severity,
        f"{label}: NVML reports clocks held down by {meanings}{_power_context(sample, active)}",
        "Check cooling and airflow (temperature), the power limit (`nvidia-smi -q -d POWER,PERFORMANCE`) and "
        "the PSU; a power cap under full load is expected, thermal or hardware slowdown is not.",
        active[0].source,
        evidence,
    )


def _power_context(sample: DeviceSample, active: list[ThrottleReason]) -> str:
    """The measured draw beside a reported power cap, so the title never contradicts the numbers.

    NVML's clock-event reasons are flags, not measurements: a power-cap flag next to a draw far
    under the limit (68 W of 250 W) is a transient or a sampling artefact, and saying "runs at its
    power limit" there would contradict the evidence printed under it.
    """
    draw, limit = sample.power_draw_watts, sample.power_limit_watts
    if draw is None or limit is None or limit <= 0 or not any(r.reason == "sw_power_cap" for r in active):
        return ""
    share = draw / limit
    where = "at" if share >= 0.9 else "well below" if share < 0.6 else "below"
    return f"; drawing {draw:.0f} W of its {limit:.0f} W limit, {where} it at capture time"


def _pcie(snapshot: Snapshot, sample: DeviceSample, where: str, label: str) -> Iterator[Finding]:
    device = _static(snapshot, sample)
    busy = sample.gpu_util_percent is not None and sample.gpu_util_percent >= knowledge.pcie_busy_percent()
    if device is None or not busy:
        return
    low = []
    if sample.pcie_link_gen and device.pcie_link_gen_max and sample.pcie_link_gen < device.pcie_link_gen_max:
        low.append(f"Gen{sample.pcie_link_gen} of Gen{device.pcie_link_gen_max}")
    if (
        sample.pcie_link_width
        and device.pcie_link_width_max
        and sample.pcie_link_width < device.pcie_link_width_max
    ):
        low.append(f"x{sample.pcie_link_width} of x{device.pcie_link_width_max}")
    if not low:
        return
    yield finding(
        ID,
        "warning",
        f"{label} runs its PCIe link at {' and '.join(low)} while {sample.gpu_util_percent:g}% busy",
        "Reseat the card or riser, check the slot's BIOS link settings and the slot wiring "
        "(`nvidia-smi -q -d PCIE` / `lspci -vv`); host↔GPU transfers are slower until fixed.",
        knowledge.pcie_source(),
        [
            ev(f"{where}.pcie_link_gen", sample.pcie_link_gen),
            ev(f"{where}.pcie_link_width", sample.pcie_link_width),
            ev(f"{where}.gpu_util_percent", sample.gpu_util_percent),
            ev(f"accelerators.nvidia.devices[{device.index}].pcie_link_gen_max", device.pcie_link_gen_max),
            ev(
                f"accelerators.nvidia.devices[{device.index}].pcie_link_width_max", device.pcie_link_width_max
            ),
        ],
    )


@rule(ID)
def device_health(snapshot: Snapshot) -> Iterator[Finding]:
    """Static device state: lost at probe time, persistence mode off on data-center GPUs."""
    datacenter = knowledge.datacenter()
    lost_in_telemetry = {
        s.index for s in (snapshot.telemetry.devices if snapshot.telemetry else ()) if s.status == "lost"
    }
    off: list[NvidiaDevice] = []
    for device in facts.nvidia_devices(snapshot):
        if device.status != "ok" and device.index not in lost_in_telemetry:
            severity: Severity = "error"
            yield finding(
                ID,
                severity,
                f"GPU {device.index} ({device.name or 'NVIDIA GPU'}) is {device.status}: "
                f"{device.reason or 'no reason given'}",
                "Drain the node and reset the GPU or reboot; check the kernel log for Xid errors.",
                XID_SOURCE,
                [ev(f"accelerators.nvidia.devices[{device.index}].status", device.status)],
            )
        if device.persistence_mode is False and datacenter.regex.search(device.name or ""):
            off.append(device)
    if off and not facts.is_windows(snapshot):
        names = sorted({d.name or "?" for d in off})
        yield finding(
            ID,
            "info",
            f"Persistence mode is off on {len(off)} data-center GPU(s) ({', '.join(names)}): each CUDA start "
            "re-initializes the driver",
            "Run the persistence daemon: `sudo systemctl enable --now nvidia-persistenced` "
            "(or `sudo nvidia-smi -pm 1`).",
            datacenter.source,
            [ev(f"accelerators.nvidia.devices[{d.index}].persistence_mode", False) for d in off],
        )
