"""``envsnap diff`` and ``envsnap check --against`` on files: exit codes, text, JSON and Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envsnap import cli
from envsnap.compare.impact import LAYERS
from envsnap.errors import ExitCode
from tests.fakes.diff_snapshots import BASE_PACKAGES, make, with_nvidia, with_torch, write


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """Known-good and a host whose torch CUDA build, driver and filelock changed."""
    rows = tuple((n, "4.3.2" if n == "filelock" else v, r) for n, v, r in BASE_PACKAGES)
    new = with_nvidia(
        with_torch(make(hostname="gpu-b", rows=rows, torch="2.4.1+cu124", torch_cuda="12.4")),
        driver_version="535.86.05",
    )
    return write(make(hostname="gpu-a"), tmp_path / "good.yaml"), write(new, tmp_path / "today.yaml")


def test_identical_files_print_one_line_and_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write(make(hostname="gpu-a"), tmp_path / "a.yaml")
    b = write(make(hostname="gpu-b"), tmp_path / "b.yaml")
    assert cli.run(["diff", str(a), str(b)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.splitlines() == [f"no differences: {make().fingerprint}"]


def test_differences_exit_1_with_a_table_per_layer_and_a_summary(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.run(["diff", *map(str, pair)]) == ExitCode.FINDINGS
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "gpu-a → gpu-b"
    for title in ("framework", "packages", "driver"):
        assert any(line.strip() == title for line in out.splitlines()), title
    # layers with breaking changes come before a layer with only notable ones
    assert out.index("\nframework") < out.index("\ndriver")
    assert out.rstrip().splitlines()[-1] == "3 breaking · 1 notable · 1 minor (5 changes) from gpu-a to gpu-b"
    assert "2.4.1+cu124" in out
    assert "535.86.05" in out


def test_json_has_changes_and_summary(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["diff", *map(str, pair), "--json"]) == ExitCode.FINDINGS
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"changes", "summary"}
    for change in data["changes"]:
        assert list(change) == ["layer", "path", "kind", "old", "new", "impact"]
    torch = next(c for c in data["changes"] if c["path"] == "frameworks.torch.cuda")
    assert torch == {
        "layer": "framework",
        "path": "frameworks.torch.cuda",
        "kind": "changed",
        "old": "12.1",
        "new": "12.4",
        "impact": "breaking",
    }
    summary = data["summary"]
    assert (summary["breaking"], summary["notable"], summary["minor"], summary["total"]) == (3, 1, 1, 5)
    assert summary["old"]["label"] == "gpu-a"
    assert summary["old"]["fingerprint"].startswith("sha256:")


def test_format_json_equals_json_flag(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    cli.run(["diff", *map(str, pair), "--json"])
    first = capsys.readouterr().out
    cli.run(["diff", *map(str, pair), "--format", "json"])
    assert capsys.readouterr().out == first


def test_markdown_for_a_pull_request(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["diff", *map(str, pair), "--format", "markdown"]) == ExitCode.FINDINGS
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "### envsnap diff: `gpu-a` → `gpu-b`"
    assert "#### framework" in lines
    assert "#### packages" in lines
    assert "| **breaking** | `frameworks.torch.cuda` | 12.1 | 12.4 |" in lines
    assert "| minor | `packages[filelock]` | 4.3.1 | 4.3.2 |" in lines


def test_only_restricts_layers_and_an_empty_result_exits_0(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.run(["diff", *map(str, pair), "--only", "driver", "--json"]) == ExitCode.FINDINGS
    assert {c["layer"] for c in json.loads(capsys.readouterr().out)["changes"]} == {"driver"}
    assert cli.run(["diff", *map(str, pair), "--only", "extensions"]) == ExitCode.OK
    assert capsys.readouterr().out.startswith("no differences")


def test_help_lists_every_layer(capsys: pytest.CaptureFixture[str]) -> None:
    cli.run(["diff", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(layer in text for layer in LAYERS)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["a.yaml", "missing.yaml"], "missing.yaml: no such file"),
        (["a.yaml", "bomb.yaml"], "anchors are not allowed"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write(make(), tmp_path / "a.yaml")
    (tmp_path / "bomb.yaml").write_text(
        "schema: 1\nmeta: &a {envsnap_version: x, captured_at: y}\nhost: *a\n"
    )
    assert cli.run(["diff", *args]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert message in captured.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["one.yaml"], "diff needs at least two snapshot files"),
        (["a.yaml", "a.yaml", "--only", "gpus"], "--only: unknown layer gpus"),
    ],
)
def test_usage_errors_exit_2_with_the_help_hint(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert cli.run(["diff", *args]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    first, hint = captured.err.splitlines()
    assert first.startswith(f"envsnap: error: {message}")
    assert hint == "Try 'envsnap diff --help' for help."


def test_three_files_give_the_fleet_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [write(make(hostname=f"gpu-{i}"), tmp_path / f"{i}.yaml") for i in range(3)]
    odd = with_torch(make(hostname="gpu-odd", torch="2.4.1+cu124", torch_cuda="12.4"))
    files.append(write(odd, tmp_path / "odd.yaml"))
    assert cli.run(["diff", *map(str, files), "--json"]) == ExitCode.FINDINGS
    data = json.loads(capsys.readouterr().out)
    assert data["hosts"] == ["gpu-0", "gpu-1", "gpu-2", "gpu-odd"]
    assert data["summary"]["deviating"] == {"gpu-odd": 3}
    cuda = next(f for f in data["fields"] if f["path"] == "frameworks.torch.cuda")
    assert cuda["majority"] == "12.1"
    assert cuda["deviants"] == ["gpu-odd"]
    assert cuda["values"]["gpu-odd"] == "12.4"
    assert cli.run(["diff", *map(str, files)]) == ExitCode.FINDINGS
    text = capsys.readouterr().out
    assert "gpu-odd: 12.4" in text
    assert "3 fields differ across 4 hosts" in " ".join(text.split())
    assert cli.run(["diff", *map(str, files[:3])]) == ExitCode.OK
    assert capsys.readouterr().out.startswith("no differences across 3 snapshots")


# ---------------------------------------------------------------------------- check --against


def test_check_against_fails_on_breaking_by_default(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    good, today = map(str, pair)
    assert cli.run(["check", "--against", good, today]) == ExitCode.FINDINGS
    out = capsys.readouterr().out
    assert "3 breaking" in out
    assert out.splitlines()[-1] == "gate failed: 3 changes breaking (--fail-on breaking)"


def test_a_passing_gate_says_so_after_the_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(make(), tmp_path / "good.yaml")
    upgraded = write(with_nvidia(make(), driver_version="535.86.05"), tmp_path / "up.yaml")
    assert cli.run(["check", "--against", str(good), str(upgraded)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "535.86.05" in out  # the change is listed
    assert out.splitlines()[-1] == "gate passed: no breaking change (1 below it) (--fail-on breaking)"
    assert cli.run(["check", "--against", str(good), str(upgraded), "--json"]) == ExitCode.OK
    assert "gate" not in capsys.readouterr().out  # JSON stays one object; the exit code is the verdict


def test_check_against_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A driver upgrade alone is notable: passes the default gate, fails --fail-on notable."""
    good = write(make(), tmp_path / "good.yaml")
    upgraded = write(with_nvidia(make(), driver_version="535.86.05"), tmp_path / "up.yaml")
    assert cli.run(["check", "--against", str(good), str(upgraded)]) == ExitCode.OK
    assert (
        cli.run(["check", "--against", str(good), str(upgraded), "--fail-on", "notable"]) == ExitCode.FINDINGS
    )
    capsys.readouterr()
    assert cli.run(["check", "--against", str(good), str(good), "--fail-on", "minor"]) == ExitCode.OK
    lines = capsys.readouterr().out.rstrip().splitlines()
    assert lines[-2].startswith("no differences")
    assert lines[-1] == "gate passed: no minor or above change (--fail-on minor)"
    assert cli.run(["check", "--against", str(good), str(upgraded), "--json"]) == ExitCode.OK
    assert json.loads(capsys.readouterr().out)["summary"]["notable"] == 1


@pytest.mark.parametrize(
    "args",
    [["--against", "good.yaml", "good.yaml", "--fail-on", "warning"], ["good.yaml", "--fail-on", "breaking"]],
)
def test_check_fail_on_levels_belong_to_their_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write(make(), tmp_path / "good.yaml")
    assert cli.run(["check", *args]) == ExitCode.BAD_INPUT
    assert "--fail-on" in capsys.readouterr().err


def test_snapshot_values_are_printed_literally_not_as_markup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write(make(variables={"NCCL_DEBUG": "INFO"}), tmp_path / "a.yaml")
    b = write(make(variables={"NCCL_DEBUG": "[bold red]WARN[/]"}), tmp_path / "b.yaml")
    assert cli.run(["diff", str(a), str(b)]) == ExitCode.FINDINGS
    assert "[bold red]WARN[/]" in capsys.readouterr().out
