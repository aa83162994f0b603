"""Plain-text rendering of a GuardReport: what ``str(g.report)`` and ``python -m envsnap.guard`` print."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envsnap.live.guard_report import GuardReport


def human_bytes(size: float) -> str:
    """Decimal units, as transfer sizes are usually quoted: 48000000 → "48.0 MB"."""
    for unit in ("B", "kB", "MB", "GB"):
        if abs(size) < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


def _ordinal(n: int) -> str:
    """2 → "2nd", 11 → "11th", 23 → "23rd"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _devices(counts: dict[str, int]) -> str:
    return " · ".join(f"{key} {count:,}" for key, count in sorted(counts.items(), key=lambda kv: -kv[1]))


def render_table(report: GuardReport, max_modules: int) -> str:
    """The report as aligned text: header, per-module table, copies, failures, findings."""
    sampled = f", every {_ordinal(report.every)} forward" if report.every > 1 else ""
    forwards = (
        f" in {report.forwards_accounted} of {report.forwards_seen} "
        f"forward{'' if report.forwards_seen == 1 else 's'}{sampled}"
        if report.forwards_seen
        else ""
    )
    lines = [
        f"envsnap guard: expected device {report.expected_device}"
        + (f" ({report.expected_reason})" if report.expected_reason else "")
        + f" · {report.ops_total:,} op{'' if report.ops_total == 1 else 's'}{forwards} · {report.verdict}",
    ]
    if report.devices:
        lines.append(f"ops by device: {_devices(report.devices)}")
    modules = sorted(report.modules, key=lambda m: (-m.off_device_ops, -m.ops, m.module))
    if modules:
        width = max(len("module"), *(len(m.module) for m in modules[:max_modules]))
        lines.append("")
        lines.append(f"{'module':<{width}}  {'ops':>7}  {'off-device':>10}  devices")
        for stat in modules[:max_modules]:
            lines.append(
                f"{stat.module:<{width}}  {stat.ops:>7,}  {stat.off_device_ops:>10,}  "
                + _devices(stat.devices)
            )
        if len(modules) > max_modules:
            lines.append(f"… {len(modules) - max_modules} more modules (all are in to_yaml())")
    if report.copies:
        lines.append("")
        lines.append("cross-device copies:")
        for copy in report.copies:
            lines.append(
                f"  {copy.op}  {copy.src}→{copy.dst} ({copy.direction})  {copy.count:,}×  "
                f"{human_bytes(copy.bytes)}  in {', '.join(copy.modules)}"
            )
    if report.not_implemented:
        lines.append("")
        lines.append("not implemented for the device (NotImplementedError):")
        lines.extend(
            f"  {f.op} on {f.device} in {f.module} ({f.count}×): {f.message}" for f in report.not_implemented
        )
    if report.fallback_warnings:
        lines.append("")
        lines.append("framework fallback warnings:")
        lines.extend(f"  {w.count}× {w.category}: {w.message}" for w in report.fallback_warnings)
    if report.findings:
        lines.append("")
        lines.extend(f"· {finding}" for finding in report.findings)
    return "\n".join(lines)
