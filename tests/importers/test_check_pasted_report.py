"""``envsnap check|show|diff|import auto`` on pasted report text: what was read, what was found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envsnap.cli import run
from envsnap.snapshot import store
from envsnap.snapshot.model import Snapshot
from tests.conftest import DATA

COMMENT = Path(__file__).parent / "data" / "github_comment_5090.md"


def test_a_raw_github_comment_names_what_it_found_in_each_section(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["check", str(COMMENT), "--json"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "read collect-env, nvidia-smi, traceback" in err
    findings = json.loads(out)["findings"]
    ids = [f["id"] for f in findings]
    assert ids.count("arch-not-in-build") == 1
    finding = next(f for f in findings if f["id"] == "arch-not-in-build")
    assert finding["severity"] == "error"
    paths = {e["path"]: e["value"] for e in finding["evidence"]}
    # from the collect_env block: the build; from the warning: the capability and arch list;
    # from the traceback: the error the user saw.
    assert paths["accelerators.nvidia.devices[0].compute_capability"] == "12.0"
    assert paths["frameworks.torch.arch_list"][-1] == "sm_90"
    assert "sm_120 is not compatible" in paths["meta.origin.messages[arch-not-compatible]"]
    assert "cu128" in finding["fix"]
    assert not any(f["severity"] == "error" and f["id"] != "arch-not-in-build" for f in findings)


def test_import_auto_records_sections_messages_and_the_nvidia_smi_facts(tmp_path: Path) -> None:
    out = tmp_path / "s.yaml"
    assert run(["import", "auto", str(COMMENT), "-o", str(out)]) == 0
    snap = store.load(out)
    origin = snap.meta.origin
    assert origin is not None
    assert origin.format == "auto"
    assert origin.sections == ("collect-env", "nvidia-smi", "traceback")
    assert [m.kind for m in origin.messages or ()] == ["arch-not-compatible", "no-kernel-image"]
    nvidia = snap.accelerators.nvidia if snap.accelerators else None
    assert nvidia is not None
    assert nvidia.cuda_driver_version == "12.8"
    assert nvidia.devices
    assert nvidia.devices[0].pci_bus_id == "0000:01:00.0"


def test_markdown_reply_is_short_and_names_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["check", str(COMMENT), "--format", "markdown"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("### envsnap check: 1 error")
    assert "**Fix:**" in out
    assert "`pip install" in out
    assert "envsnap " in out.splitlines()[-1]
    assert "Read from the report: collect-env, nvidia-smi, traceback" in out
    assert len(out.splitlines()) <= 40


def test_show_and_diff_accept_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["show", str(COMMENT), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["frameworks"]["torch"]["version"] == "2.5.1+cu124"
    other = DATA / "collect_env" / "gen2024_windows_markdown_rtx5090_cu124.txt"
    code = run(["diff", str(COMMENT), str(other), "--json"])
    captured = capsys.readouterr()
    assert code in (0, 1)
    assert "changes" in json.loads(captured.out)
    assert captured.err.count("envsnap: ") >= 2


def test_partial_report_warns_and_strict_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    full = (DATA / "collect_env" / "gen2024_torch2.2_cpu_build_on_h100.txt").read_text()
    cut = tmp_path / "cut.txt"
    cut.write_text(full[: full.index("CPU:")])
    code = run(["check", str(cut)])
    err = capsys.readouterr().err
    assert code == 1  # the CPU-only build on an H100 is still found
    warning = [line for line in err.splitlines() if "cut off" in line]
    assert len(warning) == 1
    assert "'Versions of relevant libraries'" in warning[0]
    assert run(["check", "--strict", str(cut)]) == 2
    assert "--strict refuses" in capsys.readouterr().err


def test_not_a_report_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prose = tmp_path / "prose.txt"
    prose.write_text("My model trains slowly, any idea?\nThanks!\n")
    assert run(["check", str(prose)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "tried:" in err
    assert "nvidia-smi" in err


@pytest.mark.parametrize("kind", ["collect-env", "pip-freeze", "nvidia-smi-xml"])
def test_old_import_subcommands_still_work(kind: str, tmp_path: Path) -> None:
    source = {
        "collect-env": DATA / "collect_env" / "gen2019_torch1.2_cuda10.txt",
        "pip-freeze": None,
        "nvidia-smi-xml": None,
    }[kind]
    if source is None:
        source = tmp_path / "in.txt"
        if kind == "pip-freeze":
            source.write_text("torch==2.4.1\nnumpy==2.0.0\n")
        else:
            fixtures = sorted((DATA / "nvidia").glob("*.xml"))
            source.write_text(fixtures[0].read_text())
    out = tmp_path / "o.yaml"
    assert run(["import", kind, str(source), "-o", str(out)]) == 0
    snap = store.load(out)
    assert snap.meta.origin is not None
    assert snap.meta.origin.format == kind


def test_the_tui_opens_a_pasted_report() -> None:
    from envsnap.documents import load_document

    document = load_document(COMMENT)
    assert isinstance(document, Snapshot)
    assert document.meta.origin is not None
    assert document.meta.origin.sections == ("collect-env", "nvidia-smi", "traceback")
    assert document.fingerprint is not None


def test_a_saved_import_is_not_announced_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.yaml"
    assert run(["import", "auto", str(COMMENT), "-o", str(out)]) == 0
    capsys.readouterr()
    assert run(["check", str(out)]) == 1
    assert "read collect-env" not in capsys.readouterr().err
