"""The Verify view: one ``envsnap.verify`` report, read-only — verdict, module tree, ratios, env diff.

``envsnap tui REPORT.yaml`` shows this screen when the file says ``report: envsnap-verify``
(documents.py). The module tree mirrors the model (``layers`` › ``1`` › ``act``); each node
carries its worst call's status and an error bar (verify_render.error_fraction: SQNR-scaled), and
the first divergence is marked and its branch expanded, so the eye lands where the error is born.
Beside it: speed/memory ratios with both spreads, placement, and the environment diff between the
bundle's machine and the target. Every string from the file is shown as Text (never markup) with
terminal controls escaped.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static, Tree
from textual.widgets.tree import TreeNode

from envsnap.inprocess.verify.judge import worst
from envsnap.inprocess.verify.render import (
    bar,
    environment_lines,
    error_fraction,
    number,
    placement_line,
    speed_line,
    worst_output,
)
from envsnap.inprocess.verify.report import ModuleCheck, VerifyReport
from envsnap.snapshot.safe_text import one_line, printable

VERDICT_STYLE = {
    "pass": "bold white on dark_green",
    "pass-with-limitations": "bold black on yellow",
    "slow": "bold black on dark_orange",
    "fallback": "bold white on dark_orange3",
    "fail": "bold white on red",
}
STATUS_STYLE = {"fail": "red", "missing": "red", "extra": "yellow", "noisy": "yellow", "golden-pass": "cyan"}
DIVERGENCE_MARK = "◀ first divergence"


def _label(name: str, checks: list[ModuleCheck], divergence: str | None) -> Text:
    status = worst([c.status for c in checks]) if checks else ""
    label = Text(one_line(name))
    if not checks:
        return label
    check = max((worst_output(c) for c in checks), key=error_fraction, default=None)
    metrics = check.metrics if check else None
    label.append(f"  {status}", style=STATUS_STYLE.get(status, "green"))
    label.append(f"  {bar(error_fraction(check))}", style=STATUS_STYLE.get(status, "green"))
    if metrics is not None:
        label.append(f"  max-abs {number(metrics.max_abs)} · SQNR {number(metrics.sqnr_db)} dB", style="dim")
    if divergence is not None and any(c.key == divergence for c in checks):
        label.append(f"  {DIVERGENCE_MARK}", style="bold red reverse")
    return label


class VerifyScreen(Screen[None]):
    """A verify report on one screen (read-only)."""

    # No esc: this screen is the opened file, with nothing beneath it to go back to (q quits).
    TITLE = "Verify report"

    DEFAULT_CSS = """
    VerifyScreen #verify-verdict { height: auto; padding: 0 1; }
    VerifyScreen #verify-divergence { height: auto; padding: 0 1; color: $text; }
    VerifyScreen #verify-body { height: 1fr; }
    VerifyScreen #verify-tree { width: 3fr; border: round $primary; }
    VerifyScreen #verify-side { width: 2fr; border: round $secondary; padding: 0 1; }
    """

    def __init__(self, report: VerifyReport, path: Path) -> None:
        super().__init__()
        self.report = report
        self.path = path

    def compose(self) -> ComposeResult:
        yield Static(self._verdict(), id="verify-verdict")
        yield Static(self._divergence(), id="verify-divergence")
        with Horizontal(id="verify-body"):
            yield self._tree()
            with VerticalScroll(id="verify-side"):
                yield Static(self._side(), id="verify-facts")
                yield Static(self._environment(), id="verify-environment")
        yield Footer()

    def _verdict(self) -> Text:
        report = self.report
        text = Text(f" {report.verdict.upper()} ", style=VERDICT_STYLE[report.verdict])
        ref, tgt = report.reference, report.target
        text.append(
            f"  {one_line(str(self.path))} · reference torch {one_line(ref.torch_version or '?')} "
            f"on {one_line(ref.device or '?')} → torch {one_line(tgt.torch_version or '?')} "
            f"on {one_line(tgt.device or '?')}"
        )
        for reason in report.reasons:
            text.append(f"\n· {one_line(reason)}")
        for limitation in report.limitations:
            text.append(f"\n△ {one_line(limitation)}", style="yellow")
        return text

    def _divergence(self) -> Text:
        div = self.report.first_divergence
        if div is None:
            return Text("no divergence: every module's outputs are within tolerance", style="green")
        return Text(f"First divergence: {one_line(div.summary)}", style="bold red")

    def _tree(self) -> Tree[str]:
        report = self.report
        divergence = report.first_divergence.key if report.first_divergence else None
        calls: dict[str, list[ModuleCheck]] = {}
        for module in report.modules:
            calls.setdefault(module.module, []).append(module)
        roots = [m.module for m in report.modules if "." not in m.module and m.module[:1].isupper()]
        root_name = roots[-1] if roots else "model"
        tree: Tree[str] = Tree(
            _label(root_name, calls.get(root_name, []), divergence), data=root_name, id="verify-tree"
        )
        tree.root.expand()
        nodes: dict[str, TreeNode[str]] = {"": tree.root}
        for path in sorted((p for p in calls if p != root_name), key=lambda p: (p.count("."), p)):
            parent = ""
            parts = path.split(".")
            for depth in range(1, len(parts) + 1):
                sub = ".".join(parts[:depth])
                if sub not in nodes:
                    label = _label(parts[depth - 1], calls.get(sub, []), divergence)
                    nodes[sub] = nodes[parent].add(label, data=sub)
                parent = sub
        for tap in report.taps:
            tree.root.add_leaf(_label(tap.module, [tap], divergence), data=tap.module)
        if report.first_divergence is not None:
            node = nodes.get(report.first_divergence.module)
            while node is not None:
                node.expand()
                node = node.parent
        return tree

    def _side(self) -> Text:
        report = self.report
        text = Text("Speed and memory (target / reference)\n", style="bold")
        text.append(printable(speed_line(report) or "not measured") + "\n\n")
        text.append("Placement\n", style="bold")
        text.append(printable(placement_line(report) or "not recorded") + "\n\n")
        if report.reference_noise_max_abs is not None:
            text.append("Reference noise (two runs)\n", style="bold")
            text.append(
                f"max-abs {number(report.reference_noise_max_abs)} "
                f"over {report.reference_noise_values} values\n\n"
            )
        counts = " · ".join(f"{status} {count}" for status, count in report.counts.items())
        text.append("Values\n", style="bold")
        text.append(printable(counts or "none") + "\n")
        return text

    def _environment(self) -> Text:
        text = Text("\nEnvironment (bundle → this machine)\n", style="bold")
        text.append("\n".join(printable(line) for line in environment_lines(self.report, 40)))
        return text
