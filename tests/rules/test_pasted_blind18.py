"""Readers and checks fixed after blind batch 18: each test is a real excerpt from the thread it names,
with its limits (what must still not be read) and twins (the same shape said another way)."""

from __future__ import annotations

import pytest

from envsnap.rules import facts
from envsnap.snapshot.model import ReportMessage, TorchAvailability, TorchInfo
from tests.rules.pasted import findings_of, kinds_of, snapshot_of

ARCH = ("arch-not-in-build", "error")
CPU_ON_GPU = ("cpu-only-build-on-gpu-host", "error")
CPU_WITH_CUDA = ("cpu-only-build-with-cuda-installed", "info")


# ------------------------------------------ torch's sm_XX warning quoted by its first sentence alone

BALLONS = """# Bug Report:NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the \
current PyTorch installation.

### Version Info

Python version:  3.10.11 (tags/v3.10.11:7d4cc5a, Apr  5 2023, 00:38:17) [MSC v.1929 64 bit (AMD64)]
Version: 1.4.0
"""
"""dmMaze/BallonsTranslator#825 (the title and the start of the template): the project installs torch
2.2.2+cu118."""

NIGHTLY_121 = """The console also outputs:

```
UserWarning: NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current \
PyTorch installation.
```
"""
"""pytorch/pytorch#153928 (cut to the warning): a 2.6.0.dev20241112+cu121 nightly."""


def test_the_first_sentence_alone_is_torchs_own_word_on_the_build() -> None:
    assert "arch-not-compatible" in kinds_of(BALLONS)
    assert ARCH in findings_of(BALLONS)
    snapshot = snapshot_of(BALLONS)
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert nvidia is not None
    assert nvidia.devices
    assert (nvidia.devices[0].name, nvidia.devices[0].compute_capability) == (
        "NVIDIA GeForce RTX 5070 Ti",
        "12.0",
    )
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    assert torch is None or torch.arch_list is None  # the build's list is not stated: none is made up


def test_the_first_sentence_after_userwarning_names_the_gpu_without_the_prefix() -> None:
    snapshot = snapshot_of(NIGHTLY_121)
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    assert nvidia is not None
    assert nvidia.devices
    assert nvidia.devices[0].name == "NVIDIA GeForce RTX 5070 Ti"
    assert ARCH in findings_of(NIGHTLY_121)


def test_the_whole_warning_still_gives_the_list_and_one_gpu() -> None:
    text = (
        "NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 "
        "sm_86 sm_90.\n"
    )
    snapshot = snapshot_of(text)
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    torch = snapshot.frameworks.torch if snapshot.frameworks else None
    assert nvidia is not None
    assert nvidia.devices is not None
    assert len(nvidia.devices) == 1
    assert torch is not None
    assert torch.arch_list == (
        "sm_50",
        "sm_60",
        "sm_70",
        "sm_75",
        "sm_80",
        "sm_86",
        "sm_90",
    )
    assert kinds_of(text).count("arch-not-compatible") == 1


@pytest.mark.parametrize(
    "text",
    [
        "xformers 0.0.20 is not compatible with the current PyTorch installation, please reinstall.\n",
        "My RTX 5070 Ti with CUDA capability sm_1200 is not compatible with the current PyTorch "
        "installation\n",
        "RTX 3060 with CUDA capability sm_86 is compatible with the current PyTorch installation.\n",
        "NVIDIA GeForce RTX 5070 Ti with CUDA capability sm_120 is not compatible with the current "
        "TensorFlow installation.\nPyTorch version: 2.7.0+cu128\n",
    ],
)
def test_other_not_compatible_lines_are_not_torchs_warning(text: str) -> None:
    assert "arch-not-compatible" not in kinds_of(text)
    assert ARCH not in findings_of(text)


# ------------------------------ collect_env's "CUDA used to build PyTorch: None/Could not collect"

NIGHTLY_CONDA = """```
> mamba create --name pytorch-test-2 python=3.9
> mamba install -c "nvidia/label/cuda-11.8.0" cuda-toolkit
> mamba install pytorch torchvision torchaudio pytorch-cuda=11.8 -c pytorch-nightly -c nvidia
>>> import torch
>>> torch.cuda.is_available()
False # should be True, no??
```

### Versions

```
Collecting environment information...
PyTorch version: 2.1.0.dev20230905
Is debug build: False
CUDA used to build PyTorch: Could not collect
ROCM used to build PyTorch: N/A

OS: Ubuntu 22.04.3 LTS (x86_64)
Is CUDA available: False
CUDA runtime version: 11.8.89
"""
"""pytorch/pytorch#108607 (cut to the lines that matter): conda's nightly channel resolved a CPU build."""


def _torch(text: str) -> TorchInfo | None:
    snapshot = snapshot_of(text)
    return snapshot.frameworks.torch if snapshot.frameworks else None


def test_a_build_line_without_cuda_states_a_cpu_build_and_wins_over_the_install_line() -> None:
    torch = _torch(NIGHTLY_CONDA)
    assert torch is not None
    assert torch.version == "2.1.0.dev20230905"
    assert torch.cuda is None  # "pytorch-cuda=11.8" is what was asked for, not what was installed
    assert "torch-build-no-cuda" in kinds_of(NIGHTLY_CONDA)
    assert CPU_WITH_CUDA in findings_of(NIGHTLY_CONDA)


def test_the_install_line_still_fills_a_report_that_states_no_build() -> None:
    text = NIGHTLY_CONDA.replace("CUDA used to build PyTorch: Could not collect\n", "")
    torch = _torch(text)
    assert torch is not None
    assert torch.cuda == "11.8"
    assert CPU_WITH_CUDA not in findings_of(text)


def test_none_beside_a_gpu_is_a_cpu_build_on_a_gpu_host() -> None:
    text = (
        "conda install pytorch torchvision cudatoolkit=11.3 -c pytorch\n"
        "PyTorch version: 1.12.1\nIs debug build: False\nCUDA used to build PyTorch: None\n"
        "ROCM used to build PyTorch: N/A\nIs CUDA available: False\nCUDA runtime version: 11.3.109\n"
        "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3060\nNvidia driver version: 516.94\n"
    )
    torch = _torch(text)
    assert torch is not None
    assert torch.cuda is None
    found = findings_of(text)
    assert CPU_ON_GPU in found
    assert CPU_WITH_CUDA not in found  # the GPU is shown: the error says it


@pytest.mark.parametrize(
    ("build", "rocm", "available", "version"),
    [
        ("11.8", "N/A", "False", "2.1.0.dev20230905"),  # a CUDA build
        ("Could not collect", "6.0.32830-d62f6a171", "False", "2.3.0"),  # a ROCm build prints the same line
        ("Could not collect", "N/A", "True", "2.1.0.dev20230905"),  # CUDA available: not a CPU build
        ("Could not collect", "N/A", "False", "2.7.1+xpu"),  # an XPU wheel (pytorch#157775)
        ("N/A", "N/A", "N/A", "N/A"),  # torch did not import
    ],
)
def test_the_build_line_is_no_cpu_statement_for_other_builds(
    build: str, rocm: str, available: str, version: str
) -> None:
    text = (
        f"PyTorch version: {version}\nIs debug build: False\nCUDA used to build PyTorch: {build}\n"
        f"ROCM used to build PyTorch: {rocm}\n\nIs CUDA available: {available}\n"
        "CUDA runtime version: 11.8.89\n"
    )
    assert CPU_WITH_CUDA not in findings_of(text)
    assert CPU_ON_GPU not in findings_of(text)


def test_a_mac_build_without_cuda_is_no_finding() -> None:
    text = (
        "PyTorch version: 1.8.0a0+c068180\nIs debug build: False\nCUDA used to build PyTorch: None\n"
        "ROCM used to build PyTorch: N/A\n\nOS: macOS 11.1 (arm64)\nIs CUDA available: False\n"
        "CUDA runtime version: No CUDA\nGPU models and configuration: No CUDA\n"
    )
    assert findings_of(text) == set()


@pytest.mark.parametrize(
    ("torch", "said", "stated"),
    [
        (TorchInfo(status="ok", version="2.1.0"), ReportMessage(kind="torch-build-no-cuda", text="x"), True),
        (TorchInfo(status="ok", version="2.1.0"), None, False),
        (
            TorchInfo(status="ok", version="2.1.0", hip="6.0"),
            ReportMessage(kind="torch-build-no-cuda", text="x"),
            False,
        ),
        (
            TorchInfo(status="ok", version="2.7.1+xpu"),
            ReportMessage(kind="torch-build-no-cuda", text="x"),
            False,
        ),
        (
            TorchInfo(status="ok", version="2.1.0+cu121"),
            ReportMessage(kind="torch-build-no-cuda", text="x"),
            False,
        ),
        (
            TorchInfo(status="ok", version="2.5.0", available=TorchAvailability(xpu=True)),
            ReportMessage(kind="torch-build-no-cuda", text="x"),
            False,
        ),
        (
            TorchInfo(status="ok", version="2.1.0+cpu"),
            ReportMessage(kind="torch-build-no-cuda", text="x"),
            True,
        ),
    ],
)
def test_stated_no_cuda_build(torch: TorchInfo, said: ReportMessage | None, stated: bool) -> None:
    assert facts.stated_no_cuda_build(torch, said) is stated


def test_vllms_new_layout_na_is_not_read_as_no_cuda() -> None:
    text = (
        "==============================\n       PyTorch Info\n==============================\n"
        "PyTorch version              : 2.11.0+gitd0c8b1f\nCUDA used to build PyTorch   : N/A\n"
        "ROCM used to build PyTorch   : 7.2.53211\n"
    )
    assert "torch-build-no-cuda" not in kinds_of(text)


def test_vllms_new_layout_none_is_read() -> None:
    text = "PyTorch version              : 2.6.0\nCUDA used to build PyTorch   : None\n"
    assert "torch-build-no-cuda" in kinds_of(text)
