"""The guard's running tallies, and the GuardReport built from them. Torch-free on purpose.

The dispatch mode (guard_mode.py) only increments dictionary entries on its hot path; all
aggregation, sorting and wording happens here, once, when the report is asked for.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from envsnap.inprocess.guard.report import (
    GUARD_REPORT_SCHEMA,
    CopyStat,
    Direction,
    FailedOp,
    FallbackOp,
    FallbackWarning,
    GuardReport,
    ModuleStat,
    OpCount,
    human_bytes,
)

ModKey = tuple[str, str]
"""(module label, model label)."""


@dataclass
class SeenWarning:
    """A fallback warning: how often it was emitted, and the op and module that were running."""

    count: int
    op: str | None
    module: str | None


@dataclass
class _Group:
    count: int = 0
    size_bytes: int = 0
    modules: set[str] = field(default_factory=set)


@dataclass
class Ledger:
    """Counts gathered while a guard is active (written by the dispatch mode and module hooks)."""

    expected: str
    ops: dict[tuple[ModKey, str, str], int] = field(default_factory=dict)
    """(module, op, device key) → calls."""
    copies: dict[tuple[str, str, str, ModKey], list[int]] = field(default_factory=dict)
    """(op, src, dst, module) → [calls, bytes]."""
    failed: dict[tuple[str, str, ModKey, str], int] = field(default_factory=dict)
    """(op, device key, module, first line of the error) → calls."""
    warnings: dict[tuple[str, str], SeenWarning] = field(default_factory=dict)
    """(message, category) → how often, and during which op."""
    fallback_marks: set[tuple[str, str]] = field(default_factory=set)
    """(op, device type) pairs known to fall back to the CPU."""
    fallback: dict[tuple[str, str, ModKey], int] = field(default_factory=dict)
    """(op, device type, module) → calls that fell back."""
    forwards_seen: int = 0
    forwards_accounted: int = 0

    def is_off(self, device_key: str) -> bool:
        """Whether a device key names a device other than the expected one (copies are not ops)."""
        if "→" in device_key or device_key == "none":
            return False
        return any(part != self.expected for part in device_key.split("+"))


def _direction(src: str, dst: str) -> Direction:
    if src == "cpu":
        return "host→device"
    return "device→host" if dst == "cpu" else "device→device"


def _module_stats(ledger: Ledger) -> list[ModuleStat]:
    per_module: dict[ModKey, dict[str, int]] = defaultdict(dict)
    off_ops: dict[ModKey, dict[tuple[str, str], int]] = defaultdict(dict)
    for (mod, op, device), count in ledger.ops.items():
        devices = per_module[mod]
        devices[device] = devices.get(device, 0) + count
        if ledger.is_off(device):
            off_ops[mod][(op, device)] = off_ops[mod].get((op, device), 0) + count
    stats = []
    for mod, devices in per_module.items():
        off = sorted(off_ops.get(mod, {}).items(), key=lambda kv: (-kv[1], kv[0]))
        stats.append(
            ModuleStat(
                module=mod[0],
                model=mod[1],
                ops=sum(devices.values()),
                off_device_ops=sum(count for _, count in off),
                devices=dict(sorted(devices.items())),
                off_device=tuple(OpCount(op=op, device=device, count=count) for (op, device), count in off),
            )
        )
    stats.sort(key=lambda s: (-s.off_device_ops, -s.ops, s.module))
    return stats


def _copies(ledger: Ledger) -> list[CopyStat]:
    grouped: dict[tuple[str, str, str], _Group] = defaultdict(_Group)
    for (op, src, dst, mod), (count, size) in ledger.copies.items():
        group = grouped[(op, src, dst)]
        group.count += count
        group.size_bytes += size
        group.modules.add(mod[0])
    copies = [
        CopyStat(
            op=op,
            src=src,
            dst=dst,
            direction=_direction(src, dst),
            count=group.count,
            bytes=group.size_bytes,
            modules=tuple(sorted(group.modules)),
        )
        for (op, src, dst), group in grouped.items()
    ]
    copies.sort(key=lambda c: (-c.bytes, -c.count, c.op))
    return copies


def _fallback_ops(ledger: Ledger) -> list[FallbackOp]:
    grouped: dict[tuple[str, str], _Group] = defaultdict(_Group)
    for (op, device, mod), count in ledger.fallback.items():
        grouped[(op, device)].count += count
        grouped[(op, device)].modules.add(mod[0])
    fallback = [
        FallbackOp(op=op, device=device, count=group.count, modules=tuple(sorted(group.modules)))
        for (op, device), group in grouped.items()
    ]
    fallback.sort(key=lambda f: (-f.count, f.op))
    return fallback


def _names(modules: tuple[str, ...]) -> str:
    return ", ".join(f"`{m}`" for m in modules)


def _findings(
    ledger: Ledger, modules: list[ModuleStat], copies: list[CopyStat], report_fallback: list[FallbackOp]
) -> list[str]:
    found: list[str] = []
    for failed in sorted(ledger.failed.items(), key=lambda kv: -kv[1]):
        (op, device, mod, _), count = failed
        found.append(
            f"`{op}` is not implemented for {device}: raised NotImplementedError {count}× in `{mod[0]}`"
        )
    for fallback in report_fallback:
        found.append(
            f"`{fallback.op}` fell back from {fallback.device} to the CPU {fallback.count}× "
            f"(in {_names(fallback.modules)})"
        )
    for stat in modules:
        if not stat.off_device_ops:
            continue
        devices = sorted({c.device for c in stat.off_device})
        top = ", ".join(f"{c.op} ×{c.count}" for c in stat.off_device[:3])
        more = ", …" if len(stat.off_device) > 3 else ""
        ops = f"{stat.off_device_ops} op{'' if stat.off_device_ops == 1 else 's'}"
        found.append(f"`{stat.module}` ran {ops} on {'/'.join(devices)} ({top}{more})")
    for copy in copies:
        found.append(
            f"`{copy.op}` moved {human_bytes(copy.bytes)} {copy.direction} ({copy.src}→{copy.dst}) "
            f"{copy.count} time{'s' if copy.count != 1 else ''} (in {_names(copy.modules)})"
        )
    return found


def build_guard_report(
    ledger: Ledger, *, strict: bool, every: int, expected_reason: str | None
) -> GuardReport:
    """Aggregate the ledger into a GuardReport."""
    modules = _module_stats(ledger)
    copies = _copies(ledger)
    devices: dict[str, int] = {}
    for (_, _, device), count in ledger.ops.items():
        devices[device] = devices.get(device, 0) + count
    total = sum(devices.values())
    off = sum(count for device, count in devices.items() if ledger.is_off(device))
    fallback_ops = _fallback_ops(ledger)
    findings = _findings(ledger, modules, copies, fallback_ops)
    has_problem = off or ledger.failed or fallback_ops
    return GuardReport(
        report="envsnap-guard",
        schema=GUARD_REPORT_SCHEMA,
        expected_device=ledger.expected,
        expected_reason=expected_reason,
        strict=strict,
        every=every,
        forwards_seen=ledger.forwards_seen,
        forwards_accounted=ledger.forwards_accounted,
        verdict="no-ops" if not total and not ledger.failed else "off-device" if has_problem else "on-device",
        ops_total=total,
        ops_off_device=off,
        devices=dict(sorted(devices.items(), key=lambda kv: (-kv[1], kv[0]))),
        findings=tuple(findings) or ((f"all {total:,} ops ran on {ledger.expected}",) if total else ()),
        modules=tuple(modules),
        copies=tuple(copies),
        not_implemented=tuple(
            FailedOp(op=op, device=device, module=mod[0], count=count, message=message)
            for (op, device, mod, message), count in sorted(ledger.failed.items(), key=lambda kv: -kv[1])
        ),
        fallback_warnings=tuple(
            FallbackWarning(
                message=message, category=category, count=seen.count, op=seen.op, module=seen.module
            )
            for (message, category), seen in ledger.warnings.items()
        ),
        fallback_ops=tuple(fallback_ops),
    )
