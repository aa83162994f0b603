"""13. Scale: big snapshots cost linear work, and a text diff prints what a person can read.

The issue measured a 150k-package snapshot at 30 s for ``show`` and 210 s for ``diff``. The
superlinear step was the garbage collector walking everything a YAML load had built
(tests/snapshot/test_store.py holds the pause); what remained was work per package that a big
file multiplies: every name with "-u" in it ("python-utils") sent to the full redaction check,
each version parsed four times, Rich laying out a table row per change (150k rows: minutes), and
the indented JSON written by the pure-Python encoder. No timing here (shared machines flake):
these tests count work instead — Python calls as a file doubles, full redaction checks, version
parses, rows printed. benchmarks/bench_big_snapshots.py times 150k packages against the bare
C-YAML load.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from envsnap.compare import impact
from envsnap.compare.diff import diff
from envsnap.render.diff import MAX_TABLE_ROWS
from envsnap.snapshot import redact
from envsnap.snapshot.fingerprint import fingerprint
from envsnap.snapshot.json_text import to_json
from envsnap.snapshot.model import Package, Snapshot
from tests.fakes.diff_snapshots import make
from tests.security.conftest import run_cli, write

# Real distribution names with "-u" / "_u" in them (pypi.org), the shape that used to take the slow path.
DASH_U_NAMES = ("python-utils", "django-urls", "types-urllib3", "jaraco-util", "requests-unixsocket")


def _packages(count: int, *, version: Callable[[int], str]) -> tuple[Package, ...]:
    names = [f"{DASH_U_NAMES[i % len(DASH_U_NAMES)]}-{i:06d}" for i in range(count)]
    return tuple(Package(name=name, version=version(i), installer="pip") for i, name in enumerate(names))


def _with_packages(packages: tuple[Package, ...]) -> Snapshot:
    base = make()
    kept = tuple(p for p in base.packages or () if p.name == "torch")
    grown = msgspec.structs.replace(base, packages=tuple(sorted((*kept, *packages), key=lambda p: p.name)))
    return msgspec.structs.replace(grown, fingerprint=fingerprint(grown))


def _pair(count: int) -> tuple[Snapshot, Snapshot]:
    """Two snapshots of ``count`` extra distributions, every one of them upgraded in the second."""
    old = _with_packages(_packages(count, version=lambda i: f"1.{i % 40}.{i % 7}"))
    new = _with_packages(_packages(count, version=lambda i: f"1.{i % 40}.{i % 7}.post1"))
    return old, new


def _python_calls(action: Callable[[], object]) -> int:
    """How many Python functions ``action`` calls: deterministic, unlike a timer."""
    calls = 0

    def profiler(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(profiler)
    try:
        action()
    finally:
        sys.setprofile(None)
    return calls


@pytest.fixture
def sized_files(tmp_path: Path) -> Callable[[int], tuple[Path, Path]]:
    def files(count: int) -> tuple[Path, Path]:
        old, new = _pair(count)
        return write(tmp_path, old, f"old-{count}.yaml"), write(tmp_path, new, f"new-{count}.yaml")

    return files


@pytest.mark.parametrize("argv", [["diff", "--json"], ["diff"], ["show"]], ids=lambda a: " ".join(a))
def test_doubling_the_packages_at_most_doubles_the_work(
    argv: list[str], sized_files: Callable[[int], tuple[Path, Path]], capsys: pytest.CaptureFixture[str]
) -> None:
    work = {}
    for count in (1_500, 3_000):
        old, new = sized_files(count)
        files = [str(old)] if argv == ["show"] else [str(old), str(new)]
        code, err = -1, ""

        def command(files: list[str] = files) -> None:
            nonlocal code, err
            code, _, err = run_cli(capsys, *argv, *files)

        work[count] = _python_calls(command)
        assert code == (0 if argv == ["show"] else 1)
        assert err == ""
    # Linear work doubles (plus a fixed part); a step that grows with n x n would quadruple.
    assert work[3_000] <= 2.1 * work[1_500], work


def test_names_with_dash_u_skip_the_full_redaction_check(monkeypatch: pytest.MonkeyPatch) -> None:
    full_checks: list[str] = []
    real = redact._redact_shapes

    def counted(text: str) -> str:
        full_checks.append(text)
        return real(text)

    monkeypatch.setattr(redact, "_redact_shapes", counted)
    old, _ = _pair(5_000)
    redacted = redact.redact_snapshot(old)
    assert redacted.packages == old.packages  # nothing in them is a secret...
    assert not [
        text for text in full_checks if any(name in text for name in DASH_U_NAMES)
    ]  # ...nor looks like one
    # the narrowed prefilter still catches the shape it stands for
    assert (
        redact.redact_text("curl -u deploy:hunter2 https://x")
        == f"curl -u deploy:{redact.REDACTED} https://x"
    )
    assert redact.redact_text("fetch --user=deploy:hunter2") == f"fetch --user=deploy:{redact.REDACTED}"


def test_each_distinct_version_is_parsed_once_per_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    old, new = _pair(3_000)
    impact._parse_version_text.cache_clear()
    parsed: list[str] = []
    real_init = Version.__init__

    def counted(self: Version, version: str) -> None:
        parsed.append(version)
        real_init(self, version)

    monkeypatch.setattr(Version, "__init__", counted)
    changes = diff(old, new)
    distinct = {p.version for p in (*(old.packages or ()), *(new.packages or ()))}
    assert sum(1 for c in changes if c.layer == "packages") == 3_000
    assert len(parsed) <= len(distinct), (len(parsed), len(distinct))


def _text_rows(out: str) -> list[str]:
    return [
        line for line in out.splitlines() if line.lstrip().startswith(("breaking ", "notable ", "minor "))
    ]


def test_a_text_diff_shows_the_most_severe_rows_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = MAX_TABLE_ROWS + 700
    old, new = _pair(count)
    # torch's CUDA build changes too (breaking); it sorts after every "python-utils-..." row by
    # severity only, so it must be among the rows kept.
    assert new.packages is not None
    torch = next(p for p in new.packages if p.name == "torch")
    rebuilt = msgspec.structs.replace(torch, version=torch.version.split("+")[0] + "+cu999")
    new = msgspec.structs.replace(new, packages=tuple(rebuilt if p is torch else p for p in new.packages))
    a, b = write(tmp_path, old, "a.yaml"), write(tmp_path, new, "b.yaml")

    code, out, _ = run_cli(capsys, "diff", str(a), str(b))
    assert code == 1
    rows = _text_rows(out)
    assert len(rows) == MAX_TABLE_ROWS
    assert any("packages[torch]" in row and row.lstrip().startswith("breaking") for row in rows)
    hidden = count + 1 - MAX_TABLE_ROWS
    assert f"… and {hidden:,} more changes in packages not shown ({hidden:,} minor)" in out
    assert "--json or --format markdown lists them all" in out
    assert f"({count + 1} changes)" in out  # the summary counts every change

    code, out, _ = run_cli(capsys, "diff", str(a), str(b), "--json")
    assert len(json.loads(out)["changes"]) == count + 1
    code, out, _ = run_cli(capsys, "diff", str(a), str(b), "--format", "markdown")
    assert sum(1 for line in out.splitlines() if line.startswith("| minor |")) == count


def test_a_fleet_text_table_is_capped_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = MAX_TABLE_ROWS + 50
    old, new = _pair(count)
    files = [str(write(tmp_path, s, f"h{i}.yaml")) for i, s in enumerate((old, old, new))]
    code, out, _ = run_cli(capsys, "diff", *files)
    assert code == 1
    assert len(_text_rows(out)) == MAX_TABLE_ROWS
    assert "… and 50 more differing fields not shown (50 minor)" in out
    code, out, _ = run_cli(capsys, "diff", *files, "--json")
    assert len(json.loads(out)["fields"]) == count


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_the_fast_json_writer_writes_what_the_standard_one_does(value: Any) -> None:
    assert to_json(value) == json.dumps(value, indent=2, ensure_ascii=True)
