"""``envsnap verify show`` / ``inspect`` on real files, and the report's renderings against hostile text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from torch import nn

import envsnap
from envsnap.cli import run
from envsnap.inprocess.verify.report import VerifyReport
from tests.inprocess.record_models import make_input, make_net, with_tanh_gelu


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    folder = tmp_path_factory.mktemp("cli")
    bundle = folder / "baseline.zip"
    net = make_net()
    with envsnap.record(bundle, model=net, environment="none", repeats=2, warmup=0, batch_size=2):
        net(make_input())
    reports = []
    for name, model in (("pass", make_net()), ("fail", with_tanh_gelu(make_net(), 1))):
        with envsnap.verify(bundle, model=model, environment="none", slow=None) as v:
            model(v.inputs)
        path = folder / f"{name}.yaml"
        path.write_text(v.report.to_yaml())
        reports.append(path)
    return bundle, reports[0], reports[1]


def test_show_exit_codes_follow_fail_on(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, passed, failed = files
    assert run(["verify", "show", str(passed)]) == 0
    assert "envsnap verify: PASS" in capsys.readouterr().out
    assert run(["verify", "show", str(failed)]) == 1
    out = capsys.readouterr().out
    assert "first divergence: `layers.1.act`" in out
    assert "◀ first divergence" in out
    assert run(["verify", "show", str(passed), "--fail-on", "pass-with-limitations"]) == 0


def test_show_json_is_strict_json(files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["verify", "show", str(files[2]), "--json"]) == 1
    data = json.loads(capsys.readouterr().out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert data["first_divergence"]["module"] == "layers.1.act"
    assert data["verdict"] == "fail"


def test_show_markdown(files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["verify", "show", str(files[2]), "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("## envsnap verify: **fail**")
    assert "| **layers.1.act\\#0** | fail |" in out  # the data's "#" escaped (safe_text.md_text)


def test_inspect_summarizes_a_bundle(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["verify", "inspect", str(files[0])]) == 0
    out = capsys.readouterr().out
    assert "model: Net," in out
    assert "1 top-level" in out
    assert "items/s" in out
    assert "float32 math: no TF32 on cpu; deterministic algorithms False" in out
    assert run(["verify", "inspect", str(files[0]), "--json"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["format"] == "envsnap-record"
    assert manifest["numerics"]["cudnn.allow_tf32"] == "True"  # the settings the block ran under


def test_show_refuses_what_is_not_a_verify_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "guard.yaml"
    other.write_text("report: envsnap-guard\nschema: 1\n")
    assert run(["verify", "show", str(other)]) == 2
    assert "not an envsnap verify report" in capsys.readouterr().err
    alias = tmp_path / "alias.yaml"
    alias.write_text("report: envsnap-verify\na: &x [1]\nb: *x\n")
    assert run(["verify", "show", str(alias)]) == 2


def test_module_names_with_escapes_and_markup_render_inert(tmp_path: Path) -> None:
    class Evil(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.add_module("x\x1b]8;;http://evil\x07[red]boom[/red]\u202e", nn.Linear(16, 16))

        def forward(self, x: object) -> object:
            return next(iter(self.children()))(x)

    net = Evil()
    bundle = tmp_path / "evil.envsnap"
    with envsnap.record(bundle, model=net, environment="none", repeats=1, warmup=0):
        net(make_input())
    with envsnap.verify(bundle, model=net, environment="none", slow=None) as v:
        net(v.inputs)
    report: VerifyReport = v.report
    for text in (report.table(), report.markdown()):
        assert "\x1b" not in text
        assert "\u202e" not in text
        assert "\\x1b" in text
    path = tmp_path / "r.yaml"
    path.write_text(report.to_yaml())
    assert run(["verify", "show", str(path)]) == 0
