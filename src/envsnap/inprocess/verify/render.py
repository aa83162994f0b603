"""A verify report as plain text (``print(v.report)``, ``envsnap verify show``) and as markdown.

No Rich, no colors: the same text goes to a terminal, a CI log or a file. Every string that came
from a bundle or a model (module names, reasons) is made inert first (snapshot.safe_text, the one
terminal-safe path every renderer shares), so an escape sequence planted in a module name prints as
``\\x1b``, not as a terminal command.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from envsnap.inprocess.fp32_math import differences
from envsnap.snapshot.safe_text import md_code, md_text, one_line, printable

if TYPE_CHECKING:  # the report calls this module to render itself: types only, no import cycle
    from envsnap.inprocess.verify.report import ModuleCheck, ValueCheck, VerifyReport


BAR_WIDTH = 10


def error_fraction(check: ValueCheck | None) -> float:
    """0 (identical) … 1 (no signal left): from SQNR, 140 dB → 0, 0 dB → 1; failures at least ½."""
    if check is None or check.metrics is None:
        return 0.0
    sqnr = check.metrics.sqnr_db
    if sqnr is None:
        fraction = 1.0 if check.metrics.max_abs else 0.0
    elif math.isinf(sqnr):
        fraction = 0.0
    else:
        fraction = min(max((140.0 - sqnr) / 140.0, 0.0), 1.0)
    return max(fraction, 0.5) if check.status == "fail" else fraction


def worst_output(module: ModuleCheck) -> ValueCheck | None:
    with_metrics = [c for c in module.outputs if c.metrics is not None]
    if not with_metrics:
        return module.outputs[0] if module.outputs else None
    return max(with_metrics, key=lambda c: (c.status == "fail", error_fraction(c)))


def bar(fraction: float, width: int = BAR_WIDTH) -> str:
    filled = round(fraction * width)
    return "█" * filled + "░" * (width - filled)


def number(value: float | None) -> str:
    if value is None:
        return "–"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return "0" if value == 0 else f"{value:.3g}"


def metrics_line(check: ValueCheck) -> str:
    m = check.metrics
    if m is None:
        return f"{one_line(check.key)}: {check.status}" + (
            f" ({one_line(check.reason)})" if check.reason else ""
        )
    return (
        f"{one_line(check.key)}: {check.status}, max-abs {number(m.max_abs)}, max-rel {number(m.max_rel)}, "
        f"RMSE {number(m.rmse)}, cosine {number(m.cosine)}, SQNR {number(m.sqnr_db)} dB [{check.basis}]"
    )


def speed_line(report: VerifyReport) -> str | None:
    speed = report.speed
    if speed is None:
        return None
    parts = []
    if speed.latency_ratio is not None and speed.reference and speed.target:
        parts.append(
            f"latency {speed.latency_ratio:.3g}× "
            f"({speed.target.median_s * 1e3:.3g} ms ± {speed.target.iqr_s * 1e3:.2g} "
            f"vs {speed.reference.median_s * 1e3:.3g} ms ± {speed.reference.iqr_s * 1e3:.2g}, median ± IQR; "
            "ratio of the fastest replays)"
        )
    if speed.throughput_ratio is not None:
        parts.append(f"throughput {speed.throughput_ratio:.2f}× ({number(speed.target_throughput_per_s)}/s)")
    if speed.memory_ratio is not None:
        parts.append(f"peak memory {speed.memory_ratio:.2f}×")
    elif speed.target_peak_memory_bytes is None:
        parts.append("peak memory not measured on this device")
    if speed.note:
        parts.append(one_line(speed.note))
    return " · ".join(parts) if parts else None


def placement_line(report: VerifyReport) -> str | None:
    p = report.placement
    if p is None:
        return None
    off = ", ".join(f"`{one_line(m)}`" for m in p.off_device_modules[:6])
    line = f"expected {one_line(p.expected_device)} · {p.ops_total:,} ops, {p.ops_off_device:,} off-device"
    if off:
        line += f" in {off}"
    if p.cpu_modules:
        line += " · on cpu: " + ", ".join(f"`{one_line(m)}`" for m in p.cpu_modules[:6])
    return line


def environment_lines(report: VerifyReport, limit: int = 12) -> list[str]:
    if report.environment_note:
        return [one_line(report.environment_note)]
    if not report.environment:
        return ["no differences"]
    lines = [f"{len(report.environment)} changes (bundle → this machine):"]
    for change in report.environment[:limit]:
        lines.append(
            f"  [{change.impact}] {one_line(change.path)}: "
            f"{one_line(str(change.old))} → {one_line(str(change.new))}"
        )
    if len(report.environment) > limit:
        lines.append(f"  … {len(report.environment) - limit} more")
    return lines


def render_text(report: VerifyReport, max_modules: int) -> str:
    ref, tgt = report.reference, report.target
    lines = [
        f"envsnap verify: {report.verdict.upper()} · {one_line(report.bundle)} · reference torch "
        f"{one_line(ref.torch_version or '?')} on {one_line(ref.device or '?')} → target torch "
        f"{one_line(tgt.torch_version or '?')} on {one_line(tgt.device or '?')}"
    ]
    lines += [f"· {printable(r)}" for r in report.reasons]
    if report.first_divergence:
        div = report.first_divergence
        lines += ["", f"first divergence: {printable(div.summary)}"]
        lines += [f"  out {metrics_line(c)}" for c in div.outputs]
        lines += [f"  in  {metrics_line(c)}" for c in div.inputs] or ["  in  (no recorded inputs traced)"]
    if report.limitations:
        lines += ["", "limitations:"] + [f"  · {printable(x)}" for x in report.limitations]
    lines.append("")
    if report.reference_noise_max_abs is not None:
        lines.append(
            f"reference noise: max-abs {number(report.reference_noise_max_abs)} between two reference runs "
            f"({report.reference_noise_values} values)"
        )
    speed = speed_line(report)
    if speed:
        lines.append(f"speed/memory: {speed}")
    placement = placement_line(report)
    if placement:
        lines.append(f"placement: {placement}")
    lines += [f"environment: {line}" if i == 0 else line for i, line in enumerate(environment_lines(report))]
    if report.module_match:
        lines.append(f"modules: {one_line(report.module_match)}")
    settings = differences(ref.numerics, tgt.numerics)
    if settings:
        lines.append(f"float32 math settings (reference → target): {one_line(', '.join(settings))}")
    rows = [m for m in report.modules if m.outputs] + list(report.taps)
    if rows:
        shown = _rows_to_show(rows, report, max_modules)
        width = max(len("module call"), *(len(one_line(m.key)) for m in shown))
        lines += [
            "",
            f"{'module call':<{width}}  {'status':<11}  {'max-abs':>8}  {'max-rel':>8}  "
            f"{'SQNR dB':>7}  error",
        ]
        div_key = report.first_divergence.key if report.first_divergence else None
        for module in shown:
            worst = worst_output(module)
            m = worst.metrics if worst else None
            mark = "  ◀ first divergence" if module.key == div_key else ""
            lines.append(
                f"{one_line(module.key):<{width}}  {module.status:<11}  "
                f"{number(m.max_abs if m else None):>8}  "
                f"{number(m.max_rel if m else None):>8}  {number(m.sqnr_db if m else None):>7}  "
                f"{bar(error_fraction(worst))}{mark}"
            )
        hidden = len(rows) - len(shown)
        if hidden:
            lines.append(f"… {hidden} more module calls and code values (all are in to_yaml())")
    return "\n".join(lines)


def _rows_to_show(rows: list[ModuleCheck], report: VerifyReport, limit: int) -> list[ModuleCheck]:
    """Execution order; when too many, the ones around the first divergence and the failures first.

    Values of a module's own code (``<code>`` rows) and of the state the block left
    (``<state>`` rows: one per module a training step wrote) are shown only when they did not
    pass: they are there to place a divergence, and to_yaml() has them all."""
    div_key = report.first_divergence.key if report.first_divergence else None
    rows = [m for m in rows if m.type not in ("code", "state") or m.status != "pass" or m.key == div_key]
    if len(rows) <= limit:
        return rows
    keep = {m.key for m in rows if m.status != "pass"}
    if report.first_divergence:
        index = next((i for i, m in enumerate(rows) if m.key == report.first_divergence.key), 0)
        keep |= {m.key for m in rows[max(index - 3, 0) : index + 4]}
    chosen = [m for m in rows if m.key in keep][:limit]
    return chosen or rows[:limit]


def _md(text: str) -> str:
    """Data from the bundle as inert Markdown (safe_text.md_text: links, images, HTML escaped)."""
    return md_text(text)


def render_markdown(report: VerifyReport) -> str:
    lines = [
        f"## envsnap verify: **{report.verdict}**",
        "",
        f"Bundle {md_code(report.bundle, in_table=False)}: reference torch "
        f"{_md(report.reference.torch_version or '?')} on {_md(report.reference.device or '?')}, "
        "target torch "
        f"{_md(report.target.torch_version or '?')} on {_md(report.target.device or '?')}.",
        "",
    ]
    lines += [f"- {_md(r)}" for r in report.reasons]
    if report.first_divergence:
        div = report.first_divergence
        lines += ["", f"**First divergence:** {_md(div.summary)}"]
    if report.limitations:
        lines += ["", "**Limitations:**"] + [f"- {_md(x)}" for x in report.limitations]
    settings = differences(report.reference.numerics, report.target.numerics)
    if settings:
        lines += ["", f"**Float32 math settings** (reference → target): {_md(', '.join(settings))}"]
    speed, placement = speed_line(report), placement_line(report)
    lines += ["", "| | |", "|---|---|"]
    if speed:
        lines.append(f"| speed/memory | {_md(speed)} |")
    if placement:
        lines.append(f"| placement | {_md(placement)} |")
    lines.append(f"| environment | {_md('; '.join(environment_lines(report, 8)))} |")
    rows = [m for m in report.modules if m.outputs] + list(report.taps)
    if rows:
        lines += [
            "",
            "| module call | status | max-abs | max-rel | RMSE | cosine | SQNR dB |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for module in _rows_to_show(rows, report, 50):
            worst = worst_output(module)
            m = worst.metrics if worst else None
            name = (
                f"**{_md(module.key)}**"
                if report.first_divergence and module.key == report.first_divergence.key
                else _md(module.key)
            )
            lines.append(
                f"| {name} | {module.status} | {number(m.max_abs if m else None)} | "
                f"{number(m.max_rel if m else None)} | {number(m.rmse if m else None)} | "
                f"{number(m.cosine if m else None)} | {number(m.sqnr_db if m else None)} |"
            )
    return "\n".join(lines) + "\n"
