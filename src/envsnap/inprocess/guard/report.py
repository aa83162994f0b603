"""The report of ``envsnap.guard``: which ops ran where, in which module, and what moved between devices.

A msgspec model (``g.report``), with ``to_yaml()`` for files and ``table()``/``str()`` for people
(the table lives here with the data it renders, so report and table never import each other).
No torch and no Rich here: the report is plain data that outlives the process that made it.

Device keys: an op that touched only meta tensors is ``meta``; one that mixed devices is
``cpu+meta`` (sorted). A CPU 0-dim tensor beside accelerator tensors is a scalar argument, which
PyTorch allows, and is not counted as a device. A cross-device copy is keyed ``cpu→cuda``.
"""

from __future__ import annotations

from typing import Literal

from envsnap.snapshot.model import Model

GUARD_REPORT_SCHEMA = 1

Direction = Literal["host→device", "device→host", "device→device"]

OUTSIDE = "<outside modules>"
"""Module label of ops run outside any nn.Module forward (the training loop, the loss, backward)."""


class OpCount(Model, frozen=True, kw_only=True):
    """How often one op ran on one device key."""

    op: str
    """ATen name, e.g. "aten::addmm"."""
    device: str
    count: int


class ModuleStat(Model, frozen=True, kw_only=True):
    """Ops an nn.Module ran itself (its children's ops are counted in the children)."""

    module: str
    """Path as in ``named_modules()`` ("encoder.layers.3.attn"); the outermost module by its class name."""
    model: str
    """Class name of the outermost module it was reached from."""
    ops: int
    off_device_ops: int
    devices: dict[str, int]
    """Op count per device key."""
    off_device: tuple[OpCount, ...] = ()
    """The ops it ran off the expected device, most frequent first."""


class CopyStat(Model, frozen=True, kw_only=True):
    """Copies between two devices by one op."""

    op: str
    src: str
    dst: str
    direction: Direction
    count: int
    bytes: int
    modules: tuple[str, ...]


class FailedOp(Model, frozen=True, kw_only=True):
    """An op that raised NotImplementedError on a device (recorded, then re-raised)."""

    op: str
    device: str
    module: str
    count: int
    message: str
    """First line of the error."""


class FallbackWarning(Model, frozen=True, kw_only=True):
    """A framework warning that ops are being run on the CPU behind the device's back."""

    message: str
    category: str
    count: int
    """How many times it was emitted (PyTorch emits these once per process)."""
    op: str | None = None
    """The op that was running when it was emitted."""
    module: str | None = None


class FallbackOp(Model, frozen=True, kw_only=True):
    """Calls of an op that fell back to the CPU (counted per call, not per warning)."""

    op: str
    device: str
    count: int
    modules: tuple[str, ...]


class GuardReport(Model, frozen=True, kw_only=True):
    """Everything one guard saw. Field order is file order."""

    report: Literal["envsnap-guard"]
    """What this file is (always written)."""
    schema: int
    """GUARD_REPORT_SCHEMA of the envsnap that wrote it."""
    expected_device: str
    expected_reason: str | None = None
    """How the expected device was chosen when it was not given."""
    strict: bool
    every: int
    """Sampling: every ``every``-th forward of the outermost module was accounted (1 = every op)."""
    forwards_seen: int = 0
    forwards_accounted: int = 0
    verdict: Literal["on-device", "off-device", "no-ops"]
    ops_total: int
    ops_off_device: int
    devices: dict[str, int]
    """Op count per device key over all modules."""
    findings: tuple[str, ...] = ()
    """The report in sentences, worst first."""
    modules: tuple[ModuleStat, ...] = ()
    copies: tuple[CopyStat, ...] = ()
    not_implemented: tuple[FailedOp, ...] = ()
    fallback_warnings: tuple[FallbackWarning, ...] = ()
    fallback_ops: tuple[FallbackOp, ...] = ()

    def to_yaml(self) -> str:
        """The report as YAML text."""
        from envsnap.snapshot.yaml_text import dump_yaml

        return dump_yaml(self, f"envsnap guard report (schema {self.schema})")

    def table(self, max_modules: int = 20) -> str:
        """A readable plain-text table (no colors, no Rich)."""
        return render_table(self, max_modules)

    def __str__(self) -> str:
        return self.table()


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
