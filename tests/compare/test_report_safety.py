"""Snapshot text is untrusted: no Rich markup, no terminal control, no Markdown injection, no cut values."""

from __future__ import annotations

import io
import re
from pathlib import Path

import msgspec
import pytest
from markdown_it import MarkdownIt
from rich.console import Console

from envsnap import cli
from envsnap.compare.diff import diff
from envsnap.errors import ExitCode
from envsnap.fleet.view import fleet
from envsnap.render.diff import changes_markdown, fleet_markdown, format_value, render_changes, render_fleet
from envsnap.snapshot import store
from envsnap.snapshot.model import Environment, Package, PackageSource, Snapshot
from tests.fakes.diff_snapshots import FLASH_ATTN_COMMIT, make

MARKUP_CRASH = "gpu[/bold]"
MARKUP_LINK = "[link=http://evil.example]x[/link]"
TERMINAL_ATTACK = "gpu01\x1b]0;owned\x07\x1b[2J\x9b31m\u202eevil"
MARKDOWN_ATTACK = "gpu01** [pwn](http://evil.example) <img src=x onerror=alert(1)> _x_ | `y`"


def _host(hostname: str, **variables: str) -> Snapshot:
    return make(hostname=hostname, variables={"CUDA_HOME": "/usr/local/cuda-12.1", **variables})


def _terminal_text(renderable: object) -> str:
    """What a real terminal would receive (colours, links and all)."""
    buffer = io.StringIO()
    Console(file=buffer, force_terminal=True, width=200, color_system="truecolor").print(renderable)
    return buffer.getvalue()


@pytest.mark.parametrize("hostname", [MARKUP_CRASH, MARKUP_LINK])
def test_host_labels_and_values_are_not_rich_markup(
    hostname: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = store.save(_host(hostname, NCCL_DEBUG=hostname), tmp_path / "a.yaml")
    b = store.save(_host("gpu-b"), tmp_path / "b.yaml")
    assert cli.run(["diff", str(a), str(b)]) == ExitCode.FINDINGS  # not 3: no MarkupError
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"{hostname} → gpu-b"
    assert hostname in out.splitlines()[3]  # the column header, literally
    changes = diff(_host(hostname, NCCL_DEBUG=hostname), _host("gpu-b"))
    drawn = _terminal_text(render_changes(changes, hostname, "gpu-b"))
    assert "\x1b]8;" not in drawn  # no OSC 8 hyperlink
    assert hostname in re.sub(r"\x1b\[[0-9;]*m", "", drawn)


def test_terminal_control_characters_are_shown_escaped() -> None:
    old, new = _host(TERMINAL_ATTACK, NCCL_DEBUG=TERMINAL_ATTACK), _host("gpu-b")
    changes = diff(old, new)
    drawn = _terminal_text(render_changes(changes, TERMINAL_ATTACK, "gpu-b"))
    visible = re.sub(r"\x1b\[[0-9;]*m", "", drawn)  # Rich's own colour codes
    for raw in ("\x1b]", "\x07", "\x1b[2J", "\x9b", "\u202e"):
        assert raw not in visible
    assert "gpu01\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202eevil" in visible
    fleet_drawn = _terminal_text(render_fleet(fleet([new, new, old], ["gpu-b", "gpu-c", TERMINAL_ATTACK])))
    assert "\x9b" not in fleet_drawn
    assert "\x07" not in fleet_drawn


def _html(markdown: str) -> str:
    return str(MarkdownIt("commonmark").enable("table").render(markdown))


def test_markdown_escapes_hostnames_and_values() -> None:
    old, new = _host("gpu-a", NCCL_DEBUG=MARKDOWN_ATTACK), _host("gpu-a")
    text = changes_markdown(diff(old, new), MARKDOWN_ATTACK, "gpu-b")
    html = _html(text)
    assert "<a " not in html
    assert "<img" not in html
    assert "<em>" not in html
    assert html.count("<strong>") == 1  # the summary line envsnap itself makes bold
    cells = re.findall(r"<td>(.*?)</td>", html)
    assert cells == [  # the pipe in the value did not open a fifth cell
        "minor",
        "<code>environment.variables.NCCL_DEBUG</code>",
        "gpu01** [pwn](http://evil.example) &lt;img src=x onerror=alert(1)&gt; _x_ | `y`",
        "—",
    ]
    heading = html.splitlines()[0]
    assert heading.startswith("<h3>envsnap diff: <code>gpu01** [pwn](http://evil.example) &lt;img")


def test_fleet_markdown_escapes_host_labels() -> None:
    hosts = [_host("gpu-a"), _host("gpu-a"), _host(MARKDOWN_ATTACK, NCCL_DEBUG="WARN")]
    html = _html(fleet_markdown(fleet(hosts, ["gpu-a", "gpu-b", MARKDOWN_ATTACK])))
    assert "<a " not in html
    assert "<img" not in html
    assert "<em>" not in html


def test_long_values_are_never_cut_and_lists_shorten_at_item_boundaries() -> None:
    url = f"vcs git+https://github.com/Dao-AILab/flash-attention@{FLASH_ATTN_COMMIT}"
    assert format_value("packages[flash-attn].source", url * 2) == url * 2
    requires = tuple(f"nvidia-cublas-cu12==12.1.3.1; platform_machine == 'x86_64' {i}" for i in range(10))
    shortened = format_value("packages[torch].requires", requires)
    assert shortened.endswith(" more")
    shown = shortened.rsplit(", … and ", 1)[0].split(", ")
    assert all(item in requires for item in shown)


def test_piped_tables_keep_urls_and_fingerprints_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """COLUMNS=80 and stdout a pipe: nothing is wrapped, folded or cut with an ellipsis."""
    monkeypatch.setenv("COLUMNS", "80")
    base = make()
    source = PackageSource(
        kind="vcs",
        url="https://github.com/Dao-AILab/flash-attention",
        vcs="git",
        commit_id=FLASH_ATTN_COMMIT,
    )
    flash = Package(name="flash_attn", version="2.6.3", installer="pip", source=source)
    other = msgspec.structs.replace(flash, source=msgspec.structs.replace(source, commit_id="0" * 40))
    a = store.save(
        msgspec.structs.replace(base, packages=(*(base.packages or ()), flash)), tmp_path / "a.yaml"
    )
    b = store.save(
        msgspec.structs.replace(base, packages=(*(base.packages or ()), other)), tmp_path / "b.yaml"
    )
    assert cli.run(["diff", str(a), str(b)]) == ExitCode.FINDINGS
    out = capsys.readouterr().out
    assert f"git+https://github.com/Dao-AILab/flash-attention@{FLASH_ATTN_COMMIT}" in out
    assert "…" not in out
    assert max(len(line) for line in out.splitlines()) > 80
    assert all(line == line.rstrip() for line in out.splitlines())
    assert cli.run(["diff", str(a), str(b), str(b)]) == ExitCode.FINDINGS
    fleet_out = capsys.readouterr().out
    assert f"flash-attention@{FLASH_ATTN_COMMIT}" in fleet_out
    assert "…" not in fleet_out


def test_environment_variable_names_are_escaped_too() -> None:
    base = make()
    hostile = msgspec.structs.replace(
        base, environment=Environment(status="ok", variables={"X\x1b[31mRED": "1"})
    )
    drawn = _terminal_text(render_changes(diff(base, hostile), "a", "b"))
    assert "X\\x1b[31mRED" in drawn
