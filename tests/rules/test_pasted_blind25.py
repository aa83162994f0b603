"""Readers and checks fixed after blind batch 25: each test is a real excerpt from the thread it names,
with its twins (the nearest case where the old behaviour was right, which must not change) and, for the
changed reader, the hostile inputs (escapes, markup, huge fields, planted secrets)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest

from envsnap.cli import run
from envsnap.errors import BadInput
from tests.rules.pasted import findings_of, kinds_of

ARCH = ("arch-not-in-build", "error")
ESC = "\x1b]52;c;ZXZpbA==\x07\x1b[2J"
SECRET = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"

# ---------------------------- ggml's NO_DEVICE_CODE trap (llama.cpp, whisper.cpp, ollama, koboldcpp)

KOBOLDCPP_PASCAL = (
    "Processing Prompt [BLAS] (2024 / 2024 tokens)\n"
    "Generating (1 / 320 tokens)d:\\a\\koboldcpp\\koboldcpp\\ggml\\src\\ggml-cuda\\mmv.cu:51: "
    "ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. "
    "ggml-cuda.cu was compiled for: "
    "__CUDA_ARCH_LIST__\n"
)
"""LostRuins/koboldcpp#1362: koboldcpp 1.79.1's Windows CUDA build on a Pascal GPU."""

GGML_HIP = (
    "fattn-mma-f16.cuh:2126: ERROR: HIP kernel flash_attn_ext_f16 has no device code compatible with "
    "HIP arch 1300.\n"
)
"""The HIP build's wording of the same trap (a llama.cpp fork's notes on a ROCm run)."""


@pytest.mark.parametrize("text", [KOBOLDCPP_PASCAL, GGML_HIP])
def test_ggmls_no_device_code_is_a_missing_kernel_image(text: str) -> None:
    assert kinds_of(text) == ["no-kernel-image"]
    assert findings_of(text) == {ARCH}


@pytest.mark.parametrize(
    "text",
    [
        # twin: ggml's own source (common.cuh) pasted in a thread: the format string names no kernel
        'printf("%s:%d: ERROR: CUDA kernel %s has no device code compatible with CUDA arch %d. '
        'ggml-cuda.cu was compiled for: %s\\n",\n',
        # twin: a working ggml start-up log (whisper.cpp#3459) says nothing of missing code
        "ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon Graphics, gfx1151 (0x1151), VMM: no, "
        "Wave Size: 32\n",
        # twin: a guide's advice about the message, without the message itself
        "If you see 'no device code', rebuild with -DCMAKE_CUDA_ARCHITECTURES=61.\n",
    ],
)
def test_no_trap_line_no_finding(text: str) -> None:
    assert "no-kernel-image" not in kinds_of(text)
    with contextlib.suppress(BadInput):  # nothing read at all: refused, no finding either
        assert ARCH not in findings_of(text)


@pytest.mark.parametrize(
    "wrap",
    [
        lambda line: "> " + line,  # a quoted reply
        lambda line: "`" + line.rstrip("\n") + "`\n",  # inline code
        lambda line: "[rank0]: " + line,  # a launcher's prefix
    ],
)
def test_the_trap_line_is_read_through_markup(wrap: object) -> None:
    line = KOBOLDCPP_PASCAL.splitlines(keepends=True)[1]
    assert callable(wrap)
    assert findings_of(wrap(line)) == {ARCH}


def test_escapes_markup_and_secrets_on_the_trap_line_stay_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.txt"
    path.write_text(
        f"mmv.cu:51: ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. "
        f"[bold red]X[/] <img src=x onerror=alert(1)>{ESC} HF_TOKEN={SECRET}\n"
    )
    for fmt in ("text", "markdown", "json"):
        assert run(["check", str(path), "--format", fmt]) == 1
        out, err = capsys.readouterr()
        for stream in (out, err):
            assert "\x1b" not in stream
            assert "\x07" not in stream
            assert SECRET not in stream


def test_a_huge_kernel_name_or_line_stays_cheap() -> None:
    # a name past the 100-character bound is no ggml kernel: the pattern gives up at once
    started = time.monotonic()
    assert "no-kernel-image" not in kinds_of(
        "ERROR: CUDA kernel " + "k" * 500_000 + " has no device code compatible with CUDA arch 520.\n"
    )
    long_line = (
        "ERROR: CUDA kernel mul_mat_vec has no device code compatible with CUDA arch 520. " + "y" * 500_000
    )
    assert findings_of(long_line + "\n") == {ARCH}
    assert time.monotonic() - started < 5


# ---------------------------- a companion built for the other GPU vendor's runtime

EPRO_PNP = (
    " The environment is in the following: \n"
    "- Ubuntu 20.04 LTS\n"
    "- Cuda 11.3\n"
    "- torch 1.10.1+cu113\n"
    "-  torchvision 0.11.2+cu113\n"
    "-  torchaudio 0.10.1+rocm4.1\n"
    "- pytorch3d 0.6.1\n"
    "-  MMCV 1.4.1"
)
"""tjiiv-cprg/EPro-PnP#50: a ROCm 4.1 torchaudio beside the cu113 torch (no GPU named in the text)."""


def test_a_rocm_companion_beside_a_cuda_torch_is_an_error() -> None:
    assert ("companion-version-mismatch", "error") in findings_of(EPRO_PNP)


@pytest.mark.parametrize(
    ("audio", "severity"),
    [
        ("0.10.1+cpu", "warning"),  # twin: a CPU build's ops still load beside a CUDA torch
        ("0.10.1+cu111", "warning"),  # twin: another CUDA 11 minor (unchanged)
        ("0.10.1+cu102", "error"),  # twin: another CUDA major (unchanged)
        ("0.10.1+cu113", None),  # twin: the matching variant
    ],
)
def test_other_variants_keep_their_verdict(audio: str, severity: str | None) -> None:
    found = {
        f
        for f in findings_of(EPRO_PNP.replace("0.10.1+rocm4.1", audio))
        if f[0] == "companion-version-mismatch"
    }
    assert found == ({("companion-version-mismatch", severity)} if severity else set())


# ---------------------------- rocm-smi --json cut short, amd-smi metric text

ROCM_SMI_JSON_CUT = (
    "From my Radeon 780M\n"
    "```\n"
    "{\n"
    '    "card0": {\n'
    '        "Device Name": "Phoenix3",\n'
    '        "Device ID": "0x1900",\n'
    '        "Device Rev": "0x01",\n'
    '        "VBIOS version": "113-PHXGENERIC-001",\n'
    '        "GPU use (%)": "19",\n'
    '        "PCI Bus": "0000:C4:00.0",\n'
    '        "MES KIQ firmware version": "0x00000073",\n'
)
"""sebhildebrandt/systeminformation#960: rocm-smi --json of a Radeon 780M, the stored comment cut inside."""

AMD_SMI_METRIC = (
    "$ sudo amd-smi metric\n"
    "GPU: 0\n"
    "    USAGE:\n"
    "        GFX_ACTIVITY: 0 %\n"
    "        UMC_ACTIVITY: 1 %\n"
    "    POWER:\n"
    "        SOCKET_POWER: 20 W\n"
    "        THROTTLE_STATUS: UNTHROTTLED\n"
    "    CLOCK:\n"
    "        GFX_0:\n"
    "            CLK: 14 MHz\n"
)
"""joular/powerjoular#67: amd-smi metric text (no name, no gfx target: the GPU's index alone)."""


def _amd(text: str) -> list[tuple[int, str | None, str | None]]:
    from tests.rules.pasted import snapshot_of

    accelerators = snapshot_of(text).accelerators
    amd = accelerators.amd if accelerators is not None else None
    return [(d.index, d.name, d.pci_bus_id) for d in (amd.devices or ())] if amd is not None else []


def test_a_cut_rocm_smi_json_still_names_its_gpu() -> None:
    assert _amd(ROCM_SMI_JSON_CUT) == [(0, "Phoenix3", "0000:C4:00.0")]
    assert findings_of(ROCM_SMI_JSON_CUT) == set()


def test_a_whole_rocm_smi_json_is_read_as_before() -> None:
    # twin: the whole object goes through the JSON parser (the line reader is not needed)
    whole = ROCM_SMI_JSON_CUT + '        "Serial Number": "N/A"\n    }\n}\n```\n'
    assert _amd(whole) == [(0, "Phoenix3", "0000:C4:00.0")]


def test_a_card_key_that_names_no_gpu_is_no_device() -> None:
    # twin: some other JSON with a "card0" object (a game's config, a card game's state) names no GPU
    text = '{\n    "card0": {\n        "suit": "hearts",\n        "rank": "Q",\n'
    with pytest.raises(BadInput):
        findings_of(text)


def test_amd_smi_metric_text_is_an_amd_gpu() -> None:
    assert _amd(AMD_SMI_METRIC) == [(0, None, None)]
    assert findings_of(AMD_SMI_METRIC) == set()


def test_one_section_heading_is_not_amd_smi_metric() -> None:
    # twin: a "GPU: 0" line and one "POWER:" heading (another tool's summary) are not amd-smi's layout
    with pytest.raises(BadInput):
        findings_of("GPU: 0\n    POWER:\n        SOCKET_POWER: 20 W\n")


def test_hostile_rocm_smi_json_lines_stay_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    huge = "A" * 200_000
    path = tmp_path / "r.txt"
    path.write_text(
        "{\n"
        '    "card0": {\n'
        f'        "Device Name": "Phoenix3 [bold red]X[/] <img src=x onerror=alert(1)>{ESC} {SECRET}",\n'
        f'        "Card Model": "{huge}",\n'
        f'        "{huge}": "x",\n'
    )
    started = time.monotonic()
    for fmt in ("text", "markdown", "json"):
        run(["check", str(path), "--format", fmt])
        out, err = capsys.readouterr()
        for stream in (out, err):
            assert "\x1b" not in stream
            assert "\x07" not in stream
            assert SECRET not in stream
        assert len(out) < 50_000
    run(["show", str(path), "--json"])
    out, err = capsys.readouterr()
    assert "\x1b" not in out
    assert SECRET not in out
    assert time.monotonic() - started < 10
