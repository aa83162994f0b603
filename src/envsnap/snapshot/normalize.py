"""Put a snapshot's lists and maps in their natural order, so equal stacks serialize identically.

Probes and importers may produce items in whatever order the OS or driver returns them; this is
the one place that fixes the order (packages by PEP 503 name, devices by PCI bus id, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from msgspec.structs import replace
from packaging.utils import canonicalize_name

from envsnap.snapshot.model import Finding, Snapshot

T = TypeVar("T")

_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


def _sorted(items: Iterable[T] | None, key: Callable[[T], Any]) -> tuple[T, ...] | None:
    return None if items is None else tuple(sorted(items, key=key))


def _device_key(device: Any) -> tuple[int, str, int]:
    bus = device.pci_bus_id
    return (0 if bus else 1, (bus or "").lower(), device.index)


def finding_key(finding: Finding) -> tuple[int, str, str]:
    """Errors first, then warnings, then info; by id within a severity."""
    return (_SEVERITY_RANK.get(finding.severity, 3), finding.id, finding.title)


def normalize(snapshot: Snapshot) -> Snapshot:
    """Return the snapshot with every list and map in its canonical order."""
    changes: dict[str, Any] = {}
    if snapshot.packages is not None:
        changes["packages"] = _sorted(snapshot.packages, lambda p: (canonicalize_name(p.name), p.version))
    if snapshot.python is not None and snapshot.python.shadowed is not None:
        changes["python"] = replace(
            snapshot.python,
            shadowed=_sorted(snapshot.python.shadowed, lambda s: (canonicalize_name(s.name), s.location)),
        )
    env = snapshot.environment
    if env is not None and env.variables is not None:
        changes["environment"] = replace(env, variables=dict(sorted(env.variables.items())))
    acc = snapshot.accelerators
    if acc is not None:
        acc_changes: dict[str, Any] = {}
        for vendor in ("nvidia", "amd", "intel"):
            info = getattr(acc, vendor)
            if info is not None and info.devices is not None:
                acc_changes[vendor] = replace(info, devices=_sorted(info.devices, _device_key))
        if acc_changes:
            changes["accelerators"] = replace(acc, **acc_changes)
    fw = snapshot.frameworks
    if fw is not None:
        fw_changes: dict[str, Any] = {}
        if fw.companions is not None:
            fw_changes["companions"] = _sorted(fw.companions, lambda c: canonicalize_name(c.name))
        if fw.torch is not None and fw.torch.loaded_libraries is not None:
            fw_changes["torch"] = replace(
                fw.torch, loaded_libraries=_sorted(fw.torch.loaded_libraries, lambda lib: lib.path)
            )
        if fw_changes:
            changes["frameworks"] = replace(fw, **fw_changes)
    ext = snapshot.extensions
    if ext is not None and ext.distributions is not None:
        changes["extensions"] = replace(
            ext, distributions=_sorted(ext.distributions, lambda d: canonicalize_name(d.name))
        )
    if snapshot.telemetry is not None:
        changes["telemetry"] = replace(
            snapshot.telemetry,
            devices=tuple(sorted(snapshot.telemetry.devices, key=lambda d: (d.vendor, *_device_key(d)))),
        )
    if snapshot.findings is not None:
        changes["findings"] = _sorted(snapshot.findings, finding_key)
    return replace(snapshot, **changes) if changes else snapshot
