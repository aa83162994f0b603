"""``envsnap audit``: exit codes, JSON keys, Markdown, refusals (one line on stderr)."""

from __future__ import annotations

import json

import pytest

from envsnap.cli import run
from tests.audit.conftest import DATA, project

SOURCE = str(DATA / "audit" / "l40s-torch2.14-cu130-source.yaml")
TARGET = str(DATA / "audit" / "mi250-rocm6.2-target.yaml")


def test_json_report_and_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(
        [
            "audit",
            project("cuda_cudnn"),
            "--target",
            "xpu",
            "--snapshot",
            SOURCE,
            "--json",
            "--fail-on",
            "moderate",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert list(data) == [
        "schema",
        "target",
        "project",
        "environment",
        "verdict",
        "findings",
        "files_seen",
        "files_parsed",
        "skipped",
        "rollup",
        "not_counted",
        "hipify",
    ]
    assert data["hipify"] is None  # the HIPIFY inventory is for ROCm targets only
    # Hard-coded devices, NCCL and torch.cuda calls are one-line edits: moderate, not a rewrite (#22).
    assert data["verdict"]["risk"] == "moderate"
    assert list(data["verdict"]) == ["risk", "reasons", "checklist", "supported", "cuda_only"]
    assert list(data["rollup"]) == ["components", "blockers", "more_components", "more_blockers"]
    first = data["findings"][0]
    assert list(first) == [
        "rule",
        "layer",
        "location",
        "code",
        "meaning",
        "effort",
        "risk",
        "replacement",
        "source",
        "role",
        "count",
    ]
    assert {"train.py:13", "train.py:17"} <= {f["location"] for f in data["findings"]}


def test_rocm_is_lower_and_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["audit", project("cuda_cudnn"), "--target", "rocm", "--no-env"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Verdict for rocm: LOWER RISK" in out


def test_fail_on_moderate(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audit", project("attention_libs"), "--target", "rocm", "--no-env"]) == 0
    assert (
        run(["audit", project("attention_libs"), "--target", "rocm", "--no-env", "--fail-on", "moderate"])
        == 1
    )


def test_target_snapshot(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(
        [
            "audit",
            project("cuda_extension"),
            "--target-snapshot",
            TARGET,
            "--snapshot",
            SOURCE,
            "--format",
            "markdown",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("# Migration audit: ")
    assert "rocm:gfx90a@6.2 \\(from " in out  # data escaped by safe_text.md_text
    assert "| csrc/softmax\\_kernel.cu:14 |" in out
    assert "- [ ] " in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--target", "amd"], "name the target precisely"),
        ([], "give exactly one of --target"),
        (["--target", "rocm", "--target-snapshot", TARGET], "give exactly one of --target"),
        (["--target", "rocm", "--snapshot", "/nonexistent.yaml"], "no such file"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(["audit", project("standard_ops"), *args])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert err.count("\n") == 1


def test_not_a_directory(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["audit", SOURCE, "--target", "cpu", "--no-env"]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_show_fine_lists_what_needs_no_change(capsys: pytest.CaptureFixture[str]) -> None:
    run(["audit", project("cuda_cudnn"), "--target", "rocm", "--no-env"])
    hidden = capsys.readouterr().out
    run(["audit", project("cuda_cudnn"), "--target", "rocm", "--no-env", "--show-fine"])
    shown = capsys.readouterr().out
    assert "fine as is" in hidden
    assert "train.py:13" not in hidden
    assert "train.py:13" in shown
    assert "Works unchanged" in shown
    assert "Works unchanged" not in hidden
