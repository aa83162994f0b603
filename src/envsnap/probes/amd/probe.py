"""The AMD probe: ``accelerators.amd`` plus one telemetry sample per GPU, and the live AMD telemetry source.

Two backends, tried in order:
1. amdsmi (``amd_smi.py``), when it imports and initialises and sees at least one GPU;
2. the amdgpu driver's sysfs files (``amd_sysfs.py``), which need no ROCm user space at all.
No AMD card under ``/sys/class/drm`` and nothing from amdsmi → ``skipped`` with the reasons, which
is the normal answer on an NVIDIA or CPU-only host. The ROCm version is read from the installed
tree (``rocm_install.py``) so that it agrees with ``toolkits.rocm``.

amdsmi reads the live machine, so it is only consulted when the probe root is ``/``; a test that
points ``ctx.root`` at a fixture tree gets the sysfs backend (or passes its own session).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from envsnap.probes.amd import smi as amd_smi
from envsnap.probes.amd import sysfs as amd_sysfs
from envsnap.probes.amd.smi import AmdSmiSession
from envsnap.probes.base import ProbeContext, TelemetrySource
from envsnap.snapshot.model import AmdInfo, DeviceSample


@dataclass(frozen=True)
class AmdReading:
    """Static facts and one telemetry sample per device."""

    info: AmdInfo
    telemetry: tuple[DeviceSample, ...] = ()


def _session_for(ctx: ProbeContext, session: AmdSmiSession | None) -> AmdSmiSession | None:
    if session is not None:
        return session
    return amd_smi.default_session() if ctx.root == Path("/") else None


def _rocm_version(ctx: ProbeContext, session: AmdSmiSession | None) -> str | None:
    # The ROCm tree is read only by the probe: the live sampler (open_telemetry) never imports it.
    from envsnap.probes.toolkits import rocm as rocm_install

    tree = rocm_install.current(ctx)
    if tree is not None and tree.version is not None:
        return tree.version
    return amd_smi.rocm_version(session) if session is not None else None


def probe(ctx: ProbeContext, *, session: AmdSmiSession | None = None) -> AmdReading:
    """AMD driver, ROCm and GPUs, from amdsmi or sysfs.

    Command line equivalent: ``amd-smi static`` and ``amd-smi metric`` (or ``rocm-smi -a``).

    Args:
        ctx: what to probe; ``ctx.root`` is where ``/sys`` and ``/opt`` are read.
        session: the amdsmi session to use (tests pass one over a fake module); by default the
            process-wide one when probing the live root, none otherwise.

    Returns:
        The AMD section (ok, or skipped with the reason) and the devices' telemetry.
    """
    session = _session_for(ctx, session)
    smi_reason: str | None = None
    if session is not None:
        smi, smi_reason = session.open()
        if smi is not None:
            try:
                devices, samples, driver = amd_smi.read_all(session)
            except Exception as err:  # a binding/library mismatch (ctypes errors): sysfs still works
                devices, samples, driver = (), (), None
                smi_reason = f"amdsmi failed: {type(err).__name__}: {err}"
            if devices:
                info = AmdInfo(
                    status="ok",
                    source="amdsmi",
                    driver_version=driver or amd_sysfs.driver_version(ctx),
                    rocm_version=_rocm_version(ctx, session),
                    devices=devices,
                )
                return AmdReading(info, samples)
            smi_reason = smi_reason or "amdsmi sees no GPU"
    cards = amd_sysfs.amd_cards(ctx)
    if not cards:
        return AmdReading(AmdInfo(status="skipped", reason=_absent_reason(ctx, smi_reason)))
    info = AmdInfo(
        status="ok",
        source="sysfs",
        driver_version=amd_sysfs.driver_version(ctx),
        rocm_version=_rocm_version(ctx, None),
        devices=tuple(amd_sysfs.read_device(card) for card in cards),
    )
    return AmdReading(info, tuple(amd_sysfs.read_sample(ctx, card) for card in cards))


def _absent_reason(ctx: ProbeContext, smi_reason: str | None) -> str:
    parts = ["no AMD GPU: no AMD card under /sys/class/drm"]
    if not ctx.path("/dev/kfd").exists():
        parts.append("no /dev/kfd")
    reason = ", ".join(parts)
    return f"{reason} ({smi_reason})" if smi_reason else reason


def failed(reason: str) -> AmdReading:
    """The reading recorded when the probe cannot finish."""
    return AmdReading(AmdInfo(status="failed", reason=reason))


def open_telemetry(
    ctx: ProbeContext | None = None, *, session: AmdSmiSession | None = None
) -> TelemetrySource | None:
    """The live AMD telemetry source: amdsmi when it sees GPUs, else sysfs; None without an AMD GPU.

    Args:
        ctx: what to probe; the live machine by default.
        session: the amdsmi session (tests pass one over a fake module).

    Returns:
        An opened source named ``"amdsmi"`` or ``"sysfs"``, or None.
    """
    ctx = ctx or ProbeContext()
    session = _session_for(ctx, session)
    if session is not None and session.handles():
        try:
            return amd_smi.AmdSmiTelemetry(session)
        except Exception:  # same as the probe: a broken binding leaves sysfs to do the job
            pass
    cards = amd_sysfs.amd_cards(ctx)
    return amd_sysfs.SysfsTelemetry(ctx, cards) if cards else None
