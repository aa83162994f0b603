"""25.8. Every Markdown writer makes data inert: no image, link or raw HTML, no early code-span end.

The output of each writer is rendered with a real CommonMark parser (markdown-it-py, with GFM
tables) and the HTML checked: a module key, package name, node name or source line that says
``![x](...)``, ``[x](...)``, ``<img ...>`` or holds a run of backticks stays text, inside the cell
it was written in.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from torch import nn

import envsnap
from envsnap.inprocess.verify.report import VerifyReport
from envsnap.snapshot.model import Package
from tests.fakes.diff_snapshots import make
from tests.inprocess.record_models import make_input
from tests.security.conftest import run_cli, with_package, write

HOSTILE = (
    "![pwn](javascript:alert(1))",
    "[click](javascript:alert(2))",
    "<img src=x onerror=alert(3)>",
    "<https://evil.example/auto>",
    "``double`` and ```triple``` ticks",
)


def _html(markdown: str) -> str:
    return str(MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown))


def assert_inert(markdown: str) -> None:
    html = _html(markdown)
    assert "<img" not in html, html
    assert 'href="javascript' not in html, html
    assert "evil.example/auto</a>" not in html, html
    for table in html.split("<table>")[1:]:  # each row has as many cells as its table's header
        rows = table.split("</table>")[0].split("<tr>")[1:]
        header = rows[0].count("<th")
        for row in rows[1:]:
            assert row.count("<td") == header, row


class Hostile(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        for i, name in enumerate(HOSTILE[:3]):
            self.add_module(name, nn.Linear(16, 16) if i == 0 else nn.Identity())

    def forward(self, x: object) -> object:
        for child in self.children():
            x = child(x)
        return x


def test_verify_markdown_keeps_hostile_module_names_inert(tmp_path: Path) -> None:
    net = Hostile()
    bundle = tmp_path / "hostile.envsnap"
    with envsnap.record(bundle, model=net, environment="none", repeats=1, warmup=0):
        net(make_input())
    with envsnap.verify(bundle, model=net, environment="none", slow=None) as v:
        net(v.inputs)
    report: VerifyReport = v.report
    markdown = report.markdown()
    assert "pwn" in markdown
    assert "click" in markdown
    assert_inert(markdown)


def test_audit_markdown_keeps_a_source_line_with_backticks_in_its_code_span(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = "x = torch.zeros(1).cuda()  # `` **bold** [a](javascript:alert(4)) <img src=y> ```"
    (tmp_path / "train.py").write_text(f"import torch\n{line}\n")
    code, out, err = run_cli(
        capsys, "audit", str(tmp_path), "--target", "rocm", "--no-env", "--format", "markdown"
    )
    assert code in (0, 1), err
    assert_inert(out)
    html = _html(out)
    assert "<strong>bold</strong>" not in html
    (cell,) = [c for c in html.split("<code>")[1:] if "zeros" in c]
    assert "img src=y" in cell.split("</code>")[0]  # the whole line stayed inside the code span


@pytest.mark.parametrize("fmt", ["diff", "check", "fleet"])
def test_snapshot_markdown_writers_keep_hostile_names_inert(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = make()
    hostile = base
    for i, text in enumerate(HOSTILE):
        hostile = with_package(Package(name=f"pkg{i}", version=text, installer="pip"), hostile)
    old, new = write(tmp_path, base, "a.yaml"), write(tmp_path, hostile, "b.yaml")
    argv = {
        "diff": ["diff", str(old), str(new), "--format", "markdown"],
        "check": ["check", str(new), "--format", "markdown"],
        "fleet": ["diff", str(old), str(old), str(new), "--format", "markdown"],
    }[fmt]
    code, out, err = run_cli(capsys, *argv)
    assert code in (0, 1, 2), err
    assert_inert(out)
