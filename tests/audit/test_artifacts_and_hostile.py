"""Model headers read without loading weights, and a scan that no file can crash or lead astray."""

from __future__ import annotations

import ast
import json
import os
import struct
import warnings
from pathlib import Path

import pytest
import torch

from envsnap.audit import audit, parse_target, scan_tree
from envsnap.audit.scanners.onnx_proto import read_header
from envsnap.render.audit import audit_markdown, render_audit
from envsnap.render.audit_json import audit_json
from envsnap.render.console import print_out


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def onnx_model(custom_domain: str | None) -> bytes:
    """A ModelProto by its wire format: ir_version 9, opset 17, a Relu node and maybe a custom op."""
    nodes = _field(1, _field(4, b"Relu"))
    if custom_domain:
        nodes += _field(1, _field(4, b"EfficientNMS_TRT") + _field(7, custom_domain.encode()))
    initializer = _field(5, b"\x00" * 4096)  # tensor data: skipped by its length
    graph = nodes + initializer
    opset = _field(8, _field(1, b"") + _varint(2 << 3) + _varint(17))
    return _varint(1 << 3) + _varint(9) + _field(7, graph) + opset


def test_onnx_header_reader() -> None:
    header = read_header(onnx_model("trt.plugins"))
    assert header.ir_version == 9
    assert header.opsets == {"": 17}
    assert header.custom_ops == {"trt.plugins::EfficientNMS_TRT": 1}
    with pytest.raises(ValueError):
        read_header(b"\xff\xff\xff")
    with pytest.raises(ValueError):
        read_header(_field(7, b"\x0a\xff\x01"))  # node length past the end


def test_model_files(tmp_path: Path) -> None:
    header = json.dumps(
        {
            "w": {"dtype": "F64", "shape": [2], "data_offsets": [0, 16]},
            "s": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [16, 17]},
        }
    ).encode()
    (tmp_path / "weights.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\x00" * 17)
    torch.save({"w": torch.zeros(2)}, tmp_path / "cpu.pt")
    (tmp_path / "model.onnx").write_bytes(onnx_model("trt.plugins"))
    (tmp_path / "plain.onnx").write_bytes(onnx_model(None))
    gguf = (
        b"GGUF"
        + struct.pack("<IQQ", 3, 0, 1)
        + struct.pack("<Q", 20)
        + b"general.architecture"
        + struct.pack("<IQ", 8, 5)
        + b"llama"
    )
    (tmp_path / "model.gguf").write_bytes(gguf)
    scripted = torch.jit.script(_Pinned())
    scripted.save(str(tmp_path / "pinned.pt"))  # type: ignore[no-untyped-call]
    (tmp_path / "notes.bin").write_bytes(b"not a checkpoint")
    mps = audit(scan_tree(str(tmp_path)), None, parse_target("mps"))
    rules = {f.location: f.rule for f in mps.findings}
    assert rules["weights.safetensors"] == "safetensors-dtype"
    assert "float8" in next(f.meaning for f in mps.findings if f.location == "weights.safetensors")
    assert rules["cpu.pt"] == "checkpoint"
    assert rules["model.onnx"] == "onnx-custom-ops"
    assert rules["plain.onnx"] == "onnx"
    assert rules["model.gguf"] == "gguf"
    assert rules["pinned.pt"] == "torchscript-cuda-pinned"
    assert "notes.bin" not in rules
    rocm = audit(scan_tree(str(tmp_path)), None, parse_target("rocm"))
    assert next(f for f in rocm.findings if f.location == "pinned.pt").effort == "none"


class _Pinned(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.to(torch.device("cuda:0"))


def test_symlinks_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("x.cuda()\n")
    root = tmp_path / "project"
    root.mkdir()
    (root / "ok.py").write_text("import torch\nt = torch.zeros(1).cuda()\n")
    (root / "escape").symlink_to(outside)
    (root / "loop").symlink_to(root)
    (root / "link.py").symlink_to(outside / "secret.py")
    scan = scan_tree(str(root))
    assert {s.file for s in scan.signals} == {"ok.py"}
    assert {s.file for s in scan.skipped} == {"escape", "loop", "link.py"}
    assert {s.reason for s in scan.skipped} == {"symbolic link, not followed"}


def test_hostile_files_are_skipped_with_reasons(tmp_path: Path) -> None:
    (tmp_path / "junk.py").write_bytes(b"\x00\xff\xfecuda" * 100)
    (tmp_path / "latin1.py").write_bytes(b"x = '\xe9'  # cuda\n")
    (tmp_path / "broken.py").write_text("def f(:\n    x.cuda()\n")
    (tmp_path / "deep.py").write_text("x = " + "(" * 5000 + "1" + ")" * 5000 + "  # cuda\n")
    (tmp_path / "huge.py").write_bytes(b"# cuda\n" + b"x = 1\n" * 600_000)
    (tmp_path / "bad.safetensors").write_bytes(struct.pack("<Q", 1 << 40))
    (tmp_path / "bad.onnx").write_bytes(b"\x0f\x0f\x0f")
    (tmp_path / "bad.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 16)
    (tmp_path / "bad.pt").write_bytes(b"PK\x03\x04garbage")
    unreadable = tmp_path / "secret.py"
    unreadable.write_text("x.cuda()\n")
    unreadable.chmod(0)
    scan = scan_tree(str(tmp_path))
    reasons = {s.file: s.reason for s in scan.skipped}
    assert reasons["junk.py"] == "binary data, not text"
    assert reasons["latin1.py"].startswith("not UTF-8 text")
    assert reasons["broken.py"].startswith("not parseable Python")
    assert reasons["huge.py"] == "larger than 2 MB, not scanned"
    assert "deep.py" in reasons
    for name in ("bad.safetensors", "bad.onnx", "bad.gguf", "bad.pt"):
        assert reasons[name].startswith("malformed"), name
    if os.geteuid() != 0:  # root reads anything
        assert reasons["secret.py"].startswith("cannot read")


def test_escapes_and_markup_in_files_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "evil\x1b]0;owned\x07[bold red]x.py"
    (tmp_path / name).write_text(
        't = torch.zeros(1).to("cuda")  # \x1b[2J [link=http://x]click[/link] \u202e\n'
    )
    report = audit(scan_tree(str(tmp_path)), None, parse_target("xpu"))
    assert report.findings
    print_out(render_audit(report))
    text = capsys.readouterr().out
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "\u202e" not in text
    assert "[bold red]x.py" in text
    assert "[link=http://x]click[/link]" in text
    assert "\\x1b" in text
    markdown = audit_markdown(report)
    assert "\x1b" not in markdown
    assert "\u202e" not in markdown
    row = markdown.split("## Source")[1].splitlines()[4]
    assert row.count(" | ") == 5  # six cells: nothing in the data opened another
    assert "\\x1b" in audit_json(report) or "\\u001b" in audit_json(report)
    assert "\x1b" not in audit_json(report)


def test_secrets_on_a_flagged_line_are_redacted(tmp_path: Path) -> None:
    token = "hf_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z"
    (tmp_path / "train.py").write_text(f'x = torch.zeros(1).to("cuda"); HF_TOKEN = "{token}"\n')
    report = audit(scan_tree(str(tmp_path)), None, parse_target("xpu"))
    finding = next(f for f in report.findings if f.rule == "hardcoded-cuda-device")
    assert token not in finding.code
    assert "<redacted>" in finding.code
    for text in (audit_json(report), audit_markdown(report)):
        assert token not in text


def test_a_token_in_a_file_or_folder_name_is_redacted_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Locations, roll-up components and support evidence carry names: redacted like code lines."""
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z01"
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    (tmp_path / token).mkdir()
    (tmp_path / token / f"{key}.py").write_text('x = torch.zeros(1).to("cuda")\n')
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / f"{token}_hip.cpp").write_text(
        "#include <hip/hip_runtime.h>\nvoid f() { hipGetDevice(&d); }\n"
    )
    for target in ("xpu", "rocm:gfx942"):
        report = audit(scan_tree(str(tmp_path)), None, parse_target(target))
        assert any(f.rule == "hardcoded-cuda-device" for f in report.findings)
        assert any("<redacted>" in f.location for f in report.findings)
        print_out(render_audit(report))
        for text in (capsys.readouterr().out, audit_json(report), audit_markdown(report)):
            assert token not in text
            assert key not in text
            assert "redacted" in text  # Markdown escapes the angle brackets


def test_a_huge_line_is_shortened_in_the_finding(tmp_path: Path) -> None:
    (tmp_path / "gen.py").write_text("x = t.cuda(); y = [" + "1, " * 50_000 + "]\n")
    report = audit(scan_tree(str(tmp_path)), None, parse_target("cpu"))
    finding = next(f for f in report.findings if f.rule == "hardcoded-cuda-device")
    assert finding.location == "gen.py:1"
    assert len(finding.code) <= 160
    assert finding.code.endswith("…")


def test_hostile_folder_names_in_the_rollup_and_port_evidence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Roll-up rows and "already supported" lines carry folder and file names: escaped everywhere (#22)."""
    evil = "ev\x1b[31mil|`x`[bold]"
    (tmp_path / evil).mkdir()
    (tmp_path / evil / "k.cu").write_text(
        '__global__ void k() { asm volatile("mov.u32 %0, %%laneid;" : "=r"(x)); }\n'
    )
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / f"{evil}_hip.cpp").write_text(
        "#include <hip/hip_runtime.h>\nvoid f() { hipGetDevice(&d); }\n"
    )
    report = audit(scan_tree(str(tmp_path)), None, parse_target("rocm:gfx942"))
    assert report.verdict.supported
    assert report.rollup.components
    print_out(render_audit(report))
    text = capsys.readouterr().out
    assert "\x1b" not in text
    assert "[bold]" in text
    markdown = audit_markdown(report)
    assert "\x1b" not in markdown
    rows = [line for line in markdown.split("## By component")[1].splitlines() if line.startswith("| ev")]
    assert rows
    assert rows[0].count(" | ") == 3
    assert "\x1b" not in audit_json(report)


def test_a_files_own_compiler_warnings_are_not_printed(tmp_path: Path) -> None:
    # colossalai 0.5 nn/optimizer/cpu_adam.py has '\:' in a docstring: an invalid escape, a SyntaxWarning
    # from Python 3.12 (a DeprecationWarning before) when the file is parsed. The user's file, not ours.
    body = '"""Adam \\: fused."""\nx = torch.zeros(1).to("cuda")\n'
    # Whole (a short module) and in chunks (a long one, the hot statement parsed alone).
    (tmp_path / "adam.py").write_text(body)
    (tmp_path / "long.py").write_text("\n" * 450 + 'y = (torch.ones(1).to("cuda"), "\\:")\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = audit(scan_tree(str(tmp_path), workers=1), None, parse_target("xpu"))
    assert report.findings
    assert [str(w.message) for w in caught] == []
    # Twin: parsing the same text directly does warn, so the test sees what it guards against.
    with warnings.catch_warnings(record=True) as direct:
        warnings.simplefilter("always")
        ast.parse(body)
    assert direct
