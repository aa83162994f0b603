"""The readers added after blind round 9 (JSON/XML dump lines read as ``key: value``, HTML-escaped
nvidia-smi XML, AMD GPUs named in GPU fields or beside a gfx target, torch.__version__ told in a sentence,
vLLM's different-devices warning, tegrastats, a grepped conda list with PyG wheels) get the hostile-input
checks the other readers have: terminal escapes, Rich markup, a huge field and a secret in the paste never
reach the output as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.conftest import HOSTILE, SECRET, check_paste_safely, run_cli

PASTES = {
    "sysinfo-json": (
        '{\n    "Torch env info": {\n        "torch_version": "2.1.2+cu121",\n'
        '        "is_cuda_available": "False",\n'
        f'        "nvidia_gpu_models": "AMD Radeon {HOSTILE[:150]}",\n'
        f'        "os": "{HOSTILE}",\n        "HF_TOKEN": "{SECRET}",\n'
    ),
    "escaped-xml": (
        "&nbsp; <driver_version&gt;591.74</driver_version&gt;\n"
        f"&nbsp; <product_name&gt;NVIDIA {HOSTILE[:150]}</product_name&gt;\n"
        f"&lt;product_name&gt;{HOSTILE}&lt;/product_name&gt;\nHF_TOKEN={SECRET}\n"
    ),
    "amd-prose": (
        f"my AMD APU (gfx1150, Radeon 890M) {HOSTILE}\n"
        f"torch.__version__ prints 2.12.0+cu130 {HOSTILE[:200]}\nHF_TOKEN={SECRET}\n"
    ),
    "different-devices": (
        f"Detected different devices in the system: NVIDIA RTX A5000, NVIDIA {HOSTILE[:150]}, "
        f"NVIDIA GeForce RTX 3090. {HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "version-sentence": (
        f"When using jax version 0.7.1 {HOSTILE}\njaxlib version {HOSTILE[:300]}\nHF_TOKEN={SECRET}\n"
    ),
    "tegrastats": (
        f"RAM 311/7852MB (lfb 1809x4MB) SWAP 0/3926MB CPU [0%@345] GR3D_FREQ 0%@114 {HOSTILE}\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "pyg-conda-grep": (
        "pytorch                   1.12.1          py3.9_cuda11.3_cudnn8.3.2_0    pytorch\n"
        "torch-scatter             2.1.1+pt113cu117          pypi_0    pypi\n"
        "torch-sparse              0.6.17+pt113cu117          pypi_0    pypi\n"
        f"torch-cluster             1.6.1+pt113cu117          pypi_0    pypi\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_sysinfo_paste_reads_its_amd_gpu_and_finds_the_cuda_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not refused and not merely survived: the hostile sysinfo still yields the vendor finding."""
    path = tmp_path / "sysinfo.txt"
    path.write_text(PASTES["sysinfo-json"])
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 1
    assert "build-vendor-mismatch" in out
    assert "[bold red]X[/]" in out  # the GPU's hostile name is shown as it is, not parsed as markup
    assert "PWNED" in out
    assert "\x1b" not in out
