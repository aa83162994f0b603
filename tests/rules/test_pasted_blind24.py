"""Readers and checks fixed after blind batch 24: each test is a real excerpt from the thread it names,
with its twins (the nearest case where the old behaviour was right, which must not change)."""

from __future__ import annotations

import pytest

from envsnap.errors import BadInput
from envsnap.importers.package_lists import hip_of_app_log, torch_of_wheel
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

COMPANION = ("companion-version-mismatch", "error")
OVERRIDE = ("rocm-gfx-unsupported", "warning")
CPU_ONLY = ("cpu-only-build-on-gpu-host", "error")

# ---------------------------- DeepSpeed: prebuilt ops built for another torch

DEEPSPEED_WINDOWS = (
    "`RuntimeError: PyTorch version mismatch! DeepSpeed ops were compiled and installed with a different "
    "version than what is being used at runtime. Please re-install DeepSpeed or switch torch versions. "
    "Install torch version=2.3, Runtime torch version=2.2`\n"
)
"""deepspeedai/DeepSpeed#6465: the Windows wheel built for torch 2.3 under torch 2.2.1."""

DEEPSPEED_CUDA = (
    "RuntimeError: PyTorch and CUDA version mismatch! DeepSpeed ops were compiled and installed with a "
    "different version than what is being used at runtime. Please re-install DeepSpeed or switch torch "
    "versions. DeepSpeed install versions: torch=2.3, cuda=12.1, runtime versions:torch=2.3, cuda=11.8\n"
)
"""The other wording of the same check (deepspeed/git_version_info.py), naming the CUDA too."""


@pytest.mark.parametrize("text", [DEEPSPEED_WINDOWS, DEEPSPEED_CUDA])
def test_deepspeeds_version_mismatch_is_a_companion_built_for_another_torch(text: str) -> None:
    assert kinds_of(text) == ["deepspeed-ops-other-torch"]
    assert findings_of(text) == {COMPANION}


def test_a_guide_quoting_the_messages_first_words_is_not_the_message() -> None:
    # twin: AllTalk's troubleshooting page titles a section with the start of the message, no versions
    text = (
        '<summary>🟨 raise RuntimeError("PyTorch version mismatch! DeepSpeed ops were compiled and installed.'
        "</summary><br>\n"
    )
    assert "deepspeed-ops-other-torch" not in kinds_of(text)


# ---------------------------- a variable typed after a bracketed prompt

COMFYUI_RX7600 = (
    "```powershell\n"
    "[miles@archlinux ComfyUI_backup]$ source ./venv/bin/activate\n"
    "(venv) [miles@archlinux ComfyUI_backup]$ HSA_OVERRIDE_GFX_VERSION=11.0.0 python3.12 main.py\n"
    "amdgpu.ids: No such file or directory\n"
    "Total VRAM 8176 MB, total RAM 32015 MB\n"
    "pytorch version: 2.4.1+rocm6.1\n"
)
"""Comfy-Org/ComfyUI#5756: an RX 7600 started with the override after Arch's bash prompt."""


def _variables(text: str) -> dict[str, str]:
    environment = snapshot_of(text).environment
    return dict(environment.variables or {}) if environment is not None else {}


def test_the_override_after_a_bracketed_prompt_is_read() -> None:
    assert _variables(COMFYUI_RX7600)["HSA_OVERRIDE_GFX_VERSION"] == "11.0.0"
    assert OVERRIDE in findings_of(COMFYUI_RX7600)


@pytest.mark.parametrize(
    "line",
    [
        # twin: advice in a sentence, the way maintainers answer (blind round 23 kept these unread)
        "try HSA_OVERRIDE_GFX_VERSION=11.0.0 python3.12 main.py\n",
        # the prompt in the middle of a line (a quoted transcript) is not a prompt
        "run as `[miles@archlinux x]$ HSA_OVERRIDE_GFX_VERSION=11.0.0 python3 main.py`\n",
    ],
)
def test_no_prompt_no_variable(line: str) -> None:
    assert "HSA_OVERRIDE_GFX_VERSION" not in _variables(f"{line}pytorch version: 2.4.1+rocm6.1\n")


def test_a_visibility_variable_after_a_bracketed_prompt_is_still_not_the_papers_environment() -> None:
    text = "(venv) [u@h dir]$ CUDA_VISIBLE_DEVICES=1 python main.py\npytorch version: 2.4.1+rocm6.1\n"
    assert "CUDA_VISIBLE_DEVICES" not in _variables(text)


# ---------------------------- ComfyUI's start-up log of a ROCm torch

COMFYUI_WSL_ROCM = (
    "Checkpoint files will always be loaded safely.\n"
    "Total VRAM 24560 MB, total RAM 15911 MB\n"
    "pytorch version: 2.6.0+rocm6.4.1.git1ded221d\n"
    "AMD arch: gfx1100\n"
    "ROCm version: (6, 4)\n"
    "Set vram state to: NORMAL_VRAM\n"
    "Device: cuda:0 AMD Radeon RX 7900 XTX : native\n"
    "Python version: 3.10.12 (main, May 27 2025, 17:12:29) [GCC 11.4.0]\n"
)
"""ROCm/legacy-rocm-build#5000: AMD's own wheel (repo.radeon.com) under WSL, its tag naming the commit."""

COMFYUI_SOURCE_BUILD = (
    "pytorch version: 2.8.0a0+gitfc14c65\n"
    "Set: torch.backends.cudnn.enabled = False for better AMD performance.\n"
    "AMD arch: gfx1150\n"
    "ROCm version: (6, 4)\n"
    "Set vram state to: NORMAL_VRAM\n"
    "Device: cuda:0 AMD Radeon(TM) 890M Graphics : native\n"
    "Python version: 3.12.12 | packaged by conda-forge | (main, Oct 22 2025, 23:13:34) [MSC v.1944 64 bit "
    "(AMD64)]\n"
)
"""ROCm/legacy-rocm-build#5108: a source build (untagged) of torch for ROCm 6.4 on a Radeon 890M."""


@pytest.mark.parametrize("text", [COMFYUI_WSL_ROCM, COMFYUI_SOURCE_BUILD])
def test_a_rocm_torch_in_a_comfyui_log_is_no_cpu_build(text: str) -> None:
    torch = snapshot_of(text).frameworks
    assert torch is not None
    assert torch.torch is not None
    assert torch.torch.hip
    assert CPU_ONLY not in findings_of(text)


def test_amds_commit_tag_is_a_rocm_build() -> None:
    info = torch_of_wheel("2.6.0+rocm6.4.1.git1ded221d")
    assert info is not None
    assert info.hip == "6.4.1"
    assert torch_of_wheel("2.6.0+rocm6.4.1.gitnothex!") is None


def test_comfyuis_fallback_tuple_states_no_version() -> None:
    # ComfyUI prints (6, -1) when it could not parse torch.version.hip
    assert hip_of_app_log("ROCm version: (6, 4)\n") == "6.4"
    assert hip_of_app_log("ROCm version: (6, -1)\n") is None


def test_a_collect_env_stating_no_rocm_build_is_still_a_cpu_build() -> None:
    # twin: a real collect_env states its build lines; an untagged torch with "ROCM used to build PyTorch:
    # N/A" is the CPU-only build it always was, even beside an app's ROCm line pasted with it
    text = (
        "PyTorch version: 2.8.0a0+gitfc14c65\n"
        "Is debug build: False\n"
        "CUDA used to build PyTorch: N/A\n"
        "ROCM used to build PyTorch: N/A\n"
        "\n"
        "OS: Ubuntu 22.04.5 LTS (x86_64)\n"
        "Python version: 3.12.12 (main, Oct 22 2025, 23:13:34) [GCC 11.4.0] (64-bit runtime)\n"
        "Is CUDA available: False\n"
        "GPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)\n"
        "HIP runtime version: N/A\n"
        "ROCm version: (6, 4)\n"
    )
    torch = snapshot_of(text).frameworks
    assert torch is not None
    assert torch.torch is not None
    assert torch.torch.hip is None


def test_a_cpu_tag_in_a_comfyui_log_is_still_a_cpu_build() -> None:
    # twin: the wheel's own "+cpu" tag wins over anything an app line could suggest
    text = COMFYUI_WSL_ROCM.replace("2.6.0+rocm6.4.1.git1ded221d", "2.6.0+cpu")
    torch = snapshot_of(text).frameworks
    assert torch is not None
    assert torch.torch is not None
    assert torch.torch.hip is None


# ---------------------------- a kernel's illegal memory access

LLAMACPP_H100 = (
    "/app/ggml/src/ggml-cuda/ggml-cuda.cu:70: CUDA error\n"
    "jade1        | CUDA error: an illegal memory access was encountered\n"
    "jade1        |   current device: 0, in function ggml_backend_cuda_synchronize at "
    "/app/ggml/src/ggml-cuda/ggml-cuda.cu:2273\n"
)
"""ggml-org/llama.cpp#10739: llama-server in the server-cuda image on an H100, behind compose's prefix."""


def test_an_illegal_memory_access_is_read_and_names_no_cause() -> None:
    assert kinds_of(LLAMACPP_H100) == ["cuda-illegal-address"]
    assert findings_of(LLAMACPP_H100) == set()


def test_the_words_alone_are_not_the_runtimes_line() -> None:
    # twin: prose about it, without the runtime's "CUDA error: " prefix, states nothing and is refused
    with pytest.raises(BadInput):
        findings_of("I think an illegal memory access was encountered somewhere in my kernel\n")
