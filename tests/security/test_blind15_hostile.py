"""The lines read since blind round 15 (ollama's 'amdgpu [0] gfx1103 is not supported by ... [...]';
a GeForce said by its number, 'a 5080 GPU'; the Hugging Face env commands' ``PyTorch version (GPU?):
2.2.1+cu121 (True)``; a ``Target: x86_64-unknown-linux-gnu`` triple; a pip install of a torch wheel URL;
torch's sm_XX warning with its sentences glued; CUDA error 222's 'PTX was compiled with an unsupported
toolchain'; a conda transaction plan's rows) sit beside free text: terminal escapes, Rich markup, a huge
field and a secret around them never reach the output as such, the facts are still read, and nothing
hostile is taken in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import findings_of, snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

JAX = (
    "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. "
    "Falling back to CPU."
)
PASTES = {
    "hf-torch-line": (
        f"{JAX}\n- Platform: Linux {HOSTILE[:300]}\n- PyTorch version (GPU?): 2.2.1+cu121 (True)\n"
        f"- Flax version (CPU?/GPU?/TPU?): 0.8.2 (CPU) {HOSTILE[:200]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "hf-torch-line-hostile-version": (
        "- Python version: 3.10.12\n"
        "- PyTorch version (GPU?): 2.2.1+cu121[bold red]X[/]\x1b]0;PWNED\x07 (True)\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "target-triple": (
        f"Target: x86_64-unknown-linux-gnu\nTarget: x86_64-unknown-linux-gnu{HOSTILE[:400]}\n"
        f"Docker label: {HOSTILE[:300]}\nnvidia-smi:\nN/A\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "pip-wheel-url": (
        f"{HOSTILE[:200]} pip3 install https://download.pytorch.org/whl/cu100/torch-1.0.1.post2-cp35-cp35m-"
        f"linux_x86_64.whl {HOSTILE[:200]}\nCuda compilation tools, release 10.1, V10.1.105\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "glued-arch-warning": (
        f'{HOSTILE[:300]} "NVIDIA GeForce RTX 3080 Laptop GPU with CUDA capability sm_86 '
        "is not compatible with "
        "the current PyTorch installation.The current PyTorch install supports CUDA capabilities sm_37 sm_50 "
        f'sm_60 sm_70 compute_37." {HOSTILE[:300]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n'
    ),
    "ptx-toolchain": (
        f"ollama-1 | CUDA error 222 at ggml-cuda.cu:5965: the provided PTX was compiled with an unsupported "
        f"toolchain. {HOSTILE[:400]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "conda-plan": (
        "The following packages will be downloaded:\n\n"
        f"    cudatoolkit-10.2.89        |       h74a9793_1       317.2 MB  defaults\n"
        f"    pytorch-1.12.1             |      py3.8_cpu_0       133.8 MB  pytorch\n"
        f"    {HOSTILE[:100]}-1.0 |  cpu  3 KB  pytorch\n"
        "The following NEW packages will be INSTALLED:\n\n"
        f"  evil   pkgs/main::evil-1.0-{HOSTILE[:300]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "ollama-gfx-line": (
        f'{HOSTILE[:200]} level=WARN msg="amdgpu [0] gfx1103 is not supported by /tmp/ollama1/rocm '
        f'[gfx1030 gfx1100 gfx1101 gfx1102 gfx900]" {HOSTILE[:300]}\n{HOSTILE}\nHF_TOKEN={SECRET}\n'
    ),
    "bare-geforce": (
        f"{HOSTILE[:300]} I have a 5080 GPU {HOSTILE[:300]}\nPyTorch version: 2.7.1+cu126\n"
        f"{HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_hf_torch_line_is_read_beside_hostile_text() -> None:
    snapshot = snapshot_of(PASTES["hf-torch-line"])
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    assert torch is not None
    assert torch.version == "2.2.1+cu121"
    assert ("cpu-only-build-on-gpu-host", "info") in findings_of(PASTES["hf-torch-line"])


def test_a_hostile_torch_version_is_not_taken() -> None:
    snapshot = snapshot_of(PASTES["hf-torch-line-hostile-version"])
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    assert torch is None or all(c not in (torch.version or "") for c in "[\x1b\x07")


def test_only_the_clean_triple_is_the_platform() -> None:
    snapshot = snapshot_of(PASTES["target-triple"])
    assert snapshot.host is not None
    assert snapshot.host.os_name == "x86_64-unknown-linux-gnu"


def test_the_wheel_url_and_the_warning_still_count_beside_hostile_text() -> None:
    assert ("nvcc-torch-cuda-mismatch", "info") in findings_of(PASTES["pip-wheel-url"])
    assert ("arch-not-in-build", "error") in findings_of(PASTES["glued-arch-warning"])
    assert ("driver-too-old-for-cuda-build", "error") in findings_of(PASTES["ptx-toolchain"])


def test_a_hostile_plan_row_is_not_taken() -> None:
    snapshot = snapshot_of(PASTES["conda-plan"])
    names = [p.name for p in snapshot.packages or ()]
    assert "pytorch" in names
    assert "cudatoolkit" in names
    assert all(
        len(p.name) <= 81 and len(p.version) <= 41 and "\x1b" not in p.name for p in snapshot.packages or ()
    )


def test_the_ollama_line_and_a_bare_model_still_count_beside_hostile_text() -> None:
    assert ("rocm-gfx-unsupported", "warning") in findings_of(PASTES["ollama-gfx-line"])
    snapshot = snapshot_of(PASTES["bare-geforce"])
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert nvidia is not None
    assert [d.name for d in nvidia.devices or ()] == ["NVIDIA GeForce RTX 5080"]
    assert ("arch-not-in-build", "error") in findings_of(PASTES["bare-geforce"])
