"""Hostile pasted reports: terminal escapes, Rich markup, Markdown/HTML, huge fields, planted secrets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from envsnap.cli import run

ESC = "\x1b]52;c;ZXZpbA==\x07\x1b[2J"
SECRET = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"


def _report(name: str, env_line: str = "") -> str:
    return (
        f"PyTorch version: 2.2.0+cpu\nCUDA used to build PyTorch: None\nIs CUDA available: False\n"
        f"GPU models and configuration: GPU 0: {name}\nNvidia driver version: 535.54.03\n\n"
        "Versions of relevant libraries:\n[pip3] torch==2.2.0+cpu\n\n"
        "==============================\n     Environment Variables\n"
        f"==============================\n{env_line}\n"
    )


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_escapes_and_markup_in_a_report_stay_inert(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.txt"
    path.write_text(
        _report(f"NVIDIA A100 [bold red]X[/] <img src=x onerror=alert(1)> ![p](http://e/x.png){ESC}")
    )
    assert run(["check", str(path), "--format", fmt]) == 1
    out, err = capsys.readouterr()
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "\x1b" not in err
    if fmt == "markdown":
        assert re.search(r"(?<!\\)<img", out) is None
        assert re.search(r"(?<!\\)!\[p", out) is None
    if fmt == "text":
        assert "[bold red]X[/]" in out or "bold red" in out  # shown as text, not applied


def test_planted_secrets_in_a_report_are_redacted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.txt"
    path.write_text(_report("NVIDIA A100-SXM4-80GB", f"HF_TOKEN={SECRET}\nNCCL_DEBUG=INFO"))
    for args in (
        ["show", str(path), "--json"],
        ["check", str(path), "--format", "markdown"],
        ["import", "auto", str(path)],
    ):
        run(args)
        out, err = capsys.readouterr()
        assert SECRET not in out, args
        assert SECRET not in err, args


def test_huge_fields_do_not_blow_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.txt"
    path.write_text(
        _report("NVIDIA " + "A" * 200_000)
        + "RuntimeError: no kernel image is available for execution on the device "
        + "y" * 500_000
    )
    assert run(["check", str(path), "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert len(out) < 20_000


def test_binary_and_oversized_input_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary = tmp_path / "b.bin"
    binary.write_bytes(bytes(range(256)) * 10)
    assert run(["check", str(binary)]) == 2
    big = tmp_path / "big.txt"
    with big.open("wb") as handle:
        handle.write(b"PyTorch version: 2.0.0\n")
        handle.seek(80 * 1024 * 1024)
        handle.write(b"\n")
    assert run(["check", str(big)]) == 2
    err = capsys.readouterr().err
    assert all(line.startswith("envsnap: error:") for line in err.strip().splitlines())


BAD = "\x1b[31m[red]evil[/red]<b>x</b>"


@pytest.mark.parametrize(
    "text",
    [
        "| NVIDIA-SMI 535.54.03     Driver Version: 535.54.03    CUDA Version: 12.2     |\n"
        f"|   0  NVIDIA {BAD}          On  | 00000000:07:00.0 Off |                    0 |\n",
        json.dumps({"card0": {"Card Series": f"Radeon {BAD}", "GFX Version": "gfx1100"}}),
        json.dumps(
            [{"gpu": 0, "asic": {"market_name": f"MI300X {BAD}", "target_graphics_version": "gfx942"}}]
        ),
        f"GPU: 0\n    ASIC:\n        MARKET_NAME: {BAD}\n",
        f"Package    Version\n---------- -------\ntorch      2.1.0+cpu\nevil{BAD}  1.0\n",
        f"GPU 0: NVIDIA {BAD} (UUID: GPU-1234abcd-0000-0000-0000-000000000000)\n",
    ],
    ids=["nvidia-smi", "rocm-smi-json", "amd-smi-json", "amd-smi-text", "pip-list", "nvidia-smi-L"],
)
def test_every_reader_keeps_escapes_and_markup_inert(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.txt"
    path.write_text(text)
    for args in (["show", str(path)], ["check", str(path)], ["check", str(path), "--format", "markdown"]):
        assert run(args) in (0, 1), args
        out, err = capsys.readouterr()
        assert "\x1b" not in out, args
        assert "\x1b" not in err, args
        assert "<b>x</b>" not in out or args[-1] != "markdown", args
