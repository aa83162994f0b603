"""The fuzz net over loaders, importers and renderers (hypothesis, bounded time).

Mutated snapshots, run reports and pasted reports go through the real CLI in this process. For
every input: the exit code is 0, 1 or 2 (never 3, an internal error), an error is one line, no
ESC byte (nor C1 CSI, nor a bidi override) reaches the output, and no planted secret appears
in any output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envsnap.snapshot import store
from tests.fakes.diff_snapshots import make
from tests.security.conftest import run_cli

SECRETS = {
    "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789": "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "https://bot:fuzzPassw0rd@pypi.example/simple": "fuzzPassw0rd",
    "redis://:fuzzRedisPw@cache": "fuzzRedisPw",
    "mysql -u root -pFuzzMyPw db": "FuzzMyPw",
}
HOSTILE_TEXT = st.sampled_from(
    ["\x1b]0;PWNED\x07", "\x1b[31m", "\x9b2J", "\u202e", "[/]", "[bold]", "\n", "\\", "${HOME}", "&a", "*a",
     "!!python/object:os.system", "1" + "0" * 40, "-e", ":", "'", '"', "{", "}", "\t", *SECRETS]
)  # fmt: skip
REPORT_LINES = st.sampled_from(
    ["torch==2.4.1", "six==1.17.0", "<nvidia_smi_log>", "PyTorch version: 2.4.1", "GPU 0: NVIDIA A100",
     "<product_name>[/]</product_name>"]
)  # fmt: skip
BASE = store.dumps(make()).splitlines()
FORBIDDEN = ("\x1b", "\x9b", "\u202e")


@st.composite
def mutated_snapshot(draw: st.DrawFn) -> str:
    lines = list(BASE)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        index = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        piece = draw(HOSTILE_TEXT)
        how = draw(st.sampled_from(["append", "replace-value", "insert-line", "duplicate"]))
        line = lines[index]
        if how == "append":
            lines[index] = f"{line} {piece}"  # a planted secret is a word of its own
        elif how == "replace-value" and ":" in line:
            key = line.split(":", 1)[0]
            lines[index] = f"{key}: {piece!r}" if draw(st.booleans()) else f"{key}: {piece}"
        elif how == "insert-line":
            lines.insert(index, piece)
        else:
            lines.insert(index, line)
    return "\n".join(lines) + "\n"


def _check(code: int, out: str, err: str) -> None:
    assert code in (0, 1, 2), err
    if code == 2:
        assert len(err.strip("\n").splitlines()) == 1, err
    for char in FORBIDDEN:
        assert char not in out + err
    for secret in SECRETS.values():
        assert secret not in out + err


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=mutated_snapshot(),
    command=st.sampled_from(["show", "show-json", "check", "check-json", "diff", "rollback", "report"]),
)
def test_mutated_snapshots_through_every_reader_and_renderer(
    text: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_text(text)
    argv = {
        "show": ["show", str(path)],
        "show-json": ["show", str(path), "--json"],
        "check": ["check", str(path)],
        "check-json": ["check", str(path), "--json"],
        "diff": ["diff", str(path), str(path)],
        "rollback": ["rollback", str(path), "--no-live"],
        "report": ["report", str(path)],
    }[command]
    _check(*run_cli(capsys, *argv))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kind=st.sampled_from(["pip-freeze", "collect-env", "nvidia-smi-xml"]),
    lines=st.lists(st.one_of(HOSTILE_TEXT, REPORT_LINES), max_size=8),
)
def test_pasted_reports_through_every_importer(
    kind: str, lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "report.txt"
    path.write_text("\n".join(lines) + "\n")
    _check(*run_cli(capsys, "import", kind, str(path)))


def _report_lines() -> list[str]:
    from envsnap.render.report import render_report
    from envsnap.rules import evaluate
    from envsnap.snapshot.finalize import finalize

    snapshot = finalize(make())
    return render_report(snapshot, evaluate(snapshot)).splitlines()


REPORT = _report_lines()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    edits=st.lists(
        st.tuples(st.integers(min_value=0, max_value=len(REPORT) - 1), HOSTILE_TEXT, st.booleans()),
        min_size=1,
        max_size=4,
    ),
    recount=st.booleans(),
    command=st.sampled_from(["check", "show", "show-json"]),
)
def test_mutated_envsnap_reports_pasted_back(
    edits: list[tuple[int, str, bool]],
    recount: bool,
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A pasted `envsnap report` with hostile text planted in it (in the block or around it), with the
    # block's line count fixed up or not: read back or refused in one line, never a crash.
    import re

    lines = list(REPORT)
    for index, piece, insert in edits:
        if insert:
            lines.insert(index, piece)
        else:
            lines[index] = f"{lines[index]} {piece}"
    text = "\n".join(lines) + "\n"
    if recount:
        start = next(i for i, line in enumerate(lines) if line.startswith("# envsnap snapshot (schema"))
        end = next((i for i, line in enumerate(lines) if line.startswith("# end of envsnap snapshot")), None)
        if end is not None and end > start:
            count = sum(1 for line in lines[start + 1 : end] if line.strip())
            text = re.sub(r"(# end of envsnap snapshot: )\d+", lambda m: f"{m[1]}{count}", text)
    path = tmp_path / "pasted.md"
    path.write_text(text)
    argv = {
        "check": ["check", str(path)],
        "show": ["show", str(path)],
        "show-json": ["show", str(path), "--json"],
    }[command]
    _check(*run_cli(capsys, *argv))
