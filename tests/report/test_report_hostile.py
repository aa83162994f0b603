"""``envsnap report`` on hostile snapshots, and hostile or damaged pastes of a report.

The house patterns (tests/security): terminal escapes and bidi marks never reach the output raw,
Rich markup and Markdown/HTML stay inert text, huge fields are cut, secrets never appear, bad
input is one line and exit 2, an output file is written whole or not at all.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from envsnap import api
from envsnap.errors import BadInput
from envsnap.importers import envsnap_report
from envsnap.render.report import MAX_CHARS, Format, render_report
from envsnap.rules import evaluate
from envsnap.snapshot import report_block, store
from envsnap.snapshot.finalize import checked, finalize
from envsnap.snapshot.model import Environment, Package, Snapshot
from tests.fakes.diff_snapshots import make
from tests.report.paste import PASTES, html
from tests.security.conftest import run_cli

SECRET = "hf_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb"
_RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _hostile() -> Snapshot:
    base = make()
    assert base.host is not None
    evil = "\x1b]0;owned\x07[bold red]boom[/] <img src=x onerror=alert(1)> ``` </details> \u202eevil\nsecond"
    packages = (
        *(base.packages or ()),
        Package(name="[link=https://evil.example]pkg[/link]", version="1.0 `` ``` ````"),
        Package(name="html-pkg", version="<script>alert(1)</script>", requires=("a\r\nb  ", "c\t d ")),
    )
    environment = Environment(status="ok", variables={"HF_TOKEN": SECRET, "NOTE": evil})
    host = msgspec.structs.replace(base.host, hostname="node\x9b31m-01", os_name=evil, kernel="ünïcödé  ")
    return finalize(msgspec.structs.replace(base, host=host, packages=packages, environment=environment))


def _in_code(markdown: str) -> str:
    """The Markdown with fenced code blocks and code spans removed (what renders as markup)."""
    without_fences = re.sub(r"^(`{3,})yaml\n.*?^\1$", "", markdown, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", without_fences)


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_a_hostile_snapshot_reports_inert_and_reads_back_whole(fmt: Format, tmp_path: Path) -> None:
    snapshot = _hostile()
    report = render_report(snapshot, evaluate(snapshot), fmt)
    assert not _RAW_CONTROL.search(report.replace("\n", "").replace("\t", ""))
    assert SECRET not in report
    assert "\\x1b" in report or "\\e" in report  # the ESC is shown, escaped
    for name, paste in PASTES.items():
        if name.startswith("rendered") and fmt == "text":
            continue
        path = tmp_path / f"{name}.md"
        path.write_text(paste(report), encoding="utf-8", newline="")
        assert api.load(path) == snapshot, name


def test_markdown_from_the_snapshot_cannot_become_markup() -> None:
    snapshot = _hostile()
    report = render_report(snapshot, evaluate(snapshot), "markdown")
    rendered = html(report)
    assert "<img" not in rendered
    assert "<script" not in rendered
    assert 'href="https://evil.example' not in rendered
    assert rendered.count("<details>") == 1
    assert rendered.count("</details>") == 1
    outside = _in_code(report)
    assert not re.search(r"(?<!\\)<(img|script)", outside)  # unescaped, these would be markup
    assert len(re.findall(r"(?<!\\)</details>", outside)) == 1  # ours, closing the snapshot


def test_an_oversized_snapshot_is_cut_below_the_limit_and_says_what_it_left_out(tmp_path: Path) -> None:
    base = make()
    many = tuple(
        Package(
            name=f"package-{i:04d}",
            version="1.0.0",
            installer="pip",
            requires=tuple(f"filelock>=3.{k}" for k in range(12)),  # met: no finding names them
            top_level=(f"package_{i}",),
        )
        for i in range(900)
    )
    broken = Package(name="odd-tool", version="1.0", installer="pip", requires=("no-such-dep>=2",))
    snapshot = finalize(msgspec.structs.replace(base, packages=(*(base.packages or ()), *many, broken)))
    assert len(store.dumps(snapshot)) > 2 * MAX_CHARS
    findings = evaluate(snapshot)
    assert "broken-requirements" in {f.id for f in findings}  # it names odd-tool
    for fmt in ("markdown", "text"):
        report = render_report(snapshot, findings, fmt)
        assert len(report) < MAX_CHARS
        assert "Requires-Dist lists of" in report
        assert snapshot.fingerprint is not None
        assert snapshot.fingerprint in report  # the whole snapshot's fingerprint, named in the note
        path = tmp_path / f"cut.{fmt}"
        path.write_text(PASTES["quoted"](report))
        back = api.load(path)
        assert back.meta.origin is not None
        assert back.meta.origin.partial
        assert any("Requires-Dist" in m for m in back.meta.origin.missing or ())
        assert back.fingerprint != snapshot.fingerprint  # a cut block says it is another snapshot
        assert checked(back)[1] is False  # ... and is self-consistent: no "edited" warning
        kept = {p.name: p for p in back.packages or ()}
        assert kept["torch"].requires  # what the rules read about torch is kept ...
        assert kept["odd-tool"].requires == ("no-such-dep>=2",)  # ... and about what a finding names
        assert [f.id for f in evaluate(back)] == [f.id for f in findings]  # so the findings stay


def test_a_huge_field_is_cut_even_when_nothing_else_helps() -> None:
    base = make()
    assert base.host is not None
    snapshot = finalize(
        msgspec.structs.replace(base, host=msgspec.structs.replace(base.host, kernel="k" * 200_000))
    )
    for fmt in ("markdown", "text"):
        report = render_report(snapshot, evaluate(snapshot), fmt)
        assert len(report) < MAX_CHARS
        assert "the snapshot itself (too large even so)" in report
        assert re.search(r"200\d{3} characters\\?\)", report)  # the field clipped, with its length
        assert envsnap_report.looks_like_report(report)
        with pytest.raises(BadInput, match="carries no snapshot"):
            envsnap_report.parse(report, "big.md")


def _report_of_example(tmp_path: Path) -> str:
    example = sorted((Path(__file__).resolve().parents[2] / "snapshots" / "examples").glob("*.yaml"))[0]
    snapshot = checked(api.load(example))[0]
    return render_report(snapshot, evaluate(snapshot), "markdown")


def test_a_cut_off_paste_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report_of_example(tmp_path)
    lines = report.split("\n")
    path = tmp_path / "cut.md"
    path.write_text("\n".join(lines[: len(lines) // 2]))
    code, out, err = run_cli(capsys, "check", str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "cut off" in err
    assert "Traceback" not in err


def test_a_damaged_paste_is_refused_not_misread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report_of_example(tmp_path)
    lines = report.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(report_block.HEADER))
    del lines[start + 40]  # one line of the snapshot lost in the paste
    path = tmp_path / "damaged.md"
    path.write_text("\n".join(lines))
    code, _, err = run_cli(capsys, "show", str(path))
    assert code == 2
    assert "damaged" in err
    assert err.count("\n") == 1


def test_a_block_that_does_not_validate_names_the_report_line(tmp_path: Path) -> None:
    report = _report_of_example(tmp_path)
    broken = report.replace("schema: 2\n", "schema: 2\nnot_a_field: 1\n", 1)
    broken = re.sub(r"(# end of envsnap snapshot: )(\d+)", lambda m: f"{m[1]}{int(m[2]) + 1}", broken)
    with pytest.raises(BadInput, match=r"^pasted\.md"):
        envsnap_report.parse(broken, "pasted.md")


def test_a_plain_snapshot_file_is_not_taken_for_a_report() -> None:
    text = store.dumps(make())
    assert text.startswith(report_block.HEADER)
    assert not envsnap_report.looks_like_report(text)


def test_an_alias_bomb_inside_the_block_is_refused(tmp_path: Path) -> None:
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    block = f"{report_block.HEADER}2), x\n{bomb}# end of envsnap snapshot: 3 lines\n"
    text = f"### envsnap report\n```yaml\n{block}```\n"
    with pytest.raises(BadInput, match=r"anchor|alias"):
        envsnap_report.parse(text, "bomb.md")


def test_report_output_file_is_written_whole_or_not_at_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = sorted((Path(__file__).resolve().parents[2] / "snapshots" / "examples").glob("*.yaml"))[0]
    code, _, err = run_cli(capsys, "report", str(example), "-o", str(tmp_path / "missing" / "r.md"))
    assert code == 2
    assert "no such folder" in err
    assert not (tmp_path / "missing").exists()
    code, out, err = run_cli(capsys, "report", str(tmp_path / "nope.yaml"))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    code, _, err = run_cli(capsys, "report", str(example), "--python", "/usr/bin/python3")
    assert code == 2
    assert "--python only applies to the live machine" in err
