"""Readers and checks fixed after blind batch 14: each test is a real excerpt from the thread it names."""

from __future__ import annotations

from envsnap.snapshot.model import Snapshot
from tests.rules.pasted import findings_of, snapshot_of


def torch_version(text: str) -> str | None:
    """The torch version the paste yields, or None when none is read."""
    frameworks = snapshot_of(text).frameworks
    torch = frameworks.torch if frameworks is not None else None
    return torch.version if torch is not None else None


def gpu_names(snapshot: Snapshot) -> list[str | None]:
    nvidia = snapshot.accelerators.nvidia if snapshot.accelerators else None
    return [d.name for d in nvidia.devices or ()] if nvidia is not None else []


CPU_ONLY = ("cpu-only-build-on-gpu-host", "error")

# ---------------------------------------------------------------- Ultralytics' device banner

ULTRALYTICS_CPU_WHEEL = (
    "Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cpu\n"
    "An Error occurred: Invalid CUDA 'device=0' requested. Use 'device=cpu' or pass valid CUDA device(s) if "
    "available, i.e. 'device=0' or 'device=0,1,2,3' for Multi-GPU.\n"
    "\n"
    "torch.cuda.is_available(): False\n"
    "torch.cuda.device_count(): 0\n"
)
"""ogkalu2/comic-translate#17 (fixed by installing the cu121 wheel; the card is named in a later comment)."""

ULTRALYTICS_T4 = """>>> ultralytics.checks()
Ultralytics 8.3.17 🚀 Python-3.10.12 torch-2.4.1+cu121 CUDA:0 (Tesla T4, 15102MiB)
Setup complete ✅ (2 CPUs, 12.7 GB RAM, 32.3/112.6 GB disk)
"""
"""ultralytics.checks() on a Colab T4, as Ultralytics users paste it."""

YOLOV5_CPU_DEVICE = "YOLOv5 🚀 v6.1-306-gfbe67e4 Python-3.10.12 torch-2.1.0+cu118 CPU\n"
"""YOLOv5's banner when it runs on the CPU (a CUDA wheel, no device opened)."""

ULTRALYTICS_SOURCE_BUILD = (
    "Ultralytics 8.3.75 🚀 Python-3.10.12 torch-2.1.0a0+32f93b1 "
    "CUDA:0 (NVIDIA GeForce RTX 2080 Ti, 11012MiB)\n"
)
"""A source build of torch (NGC container style), with the GPU torch opened."""


def test_the_banner_gives_torch_and_no_gpu_when_none_is_named() -> None:
    assert torch_version(ULTRALYTICS_CPU_WHEEL) == "2.1.0+cpu"
    # A CPU wheel with no GPU in the paste: nothing to judge it against (house convention).
    assert CPU_ONLY not in findings_of(ULTRALYTICS_CPU_WHEEL)


def test_the_banner_gives_the_cuda_device_torch_opened() -> None:
    snapshot = snapshot_of(ULTRALYTICS_T4)
    assert torch_version(ULTRALYTICS_T4) == "2.4.1+cu121"
    assert gpu_names(snapshot) == ["Tesla T4"]
    assert not {f for f in findings_of(ULTRALYTICS_T4) if f[1] == "error"}


def test_a_cpu_device_banner_gives_the_version_only() -> None:
    assert torch_version(YOLOV5_CPU_DEVICE) == "2.1.0+cu118"
    assert gpu_names(snapshot_of(YOLOV5_CPU_DEVICE)) == []


def test_a_source_build_names_no_wheel_but_its_gpu_is_read() -> None:
    # "+32f93b1" is a git hash, not a wheel tag: the build stays unknown (evidence_sections._torch's policy).
    assert torch_version(ULTRALYTICS_SOURCE_BUILD) is None
    assert gpu_names(snapshot_of(ULTRALYTICS_SOURCE_BUILD)) == ["NVIDIA GeForce RTX 2080 Ti"]
    assert not {f for f in findings_of(ULTRALYTICS_SOURCE_BUILD) if f[1] == "error"}


def test_a_cpu_wheel_beside_an_opened_gpu_is_the_cpu_only_error() -> None:
    # The banner's GPU is a GPU shown: the same rule that judges collect_env judges it.
    text = ULTRALYTICS_T4.replace("torch-2.4.1+cu121", "torch-2.4.1+cpu")
    assert CPU_ONLY in findings_of(text)


# ---------------------------------------------------------------- collect_env's [pip3] and [conda] lines

IPEX_COLLECT_ENV_TAIL = """Collecting environment information...
PyTorch version: 2.1.0.post3+cxx11.abi
PyTorch CXX11 ABI: No
IPEX version: 2.1.40+xpu

Versions of relevant libraries:
[pip3] intel_extension_for_pytorch==2.1.40+xpu
[pip3] numpy==2.1.2
[pip3] torch==2.1.0.post3+cxx11.abi
[pip3] torchaudio==2.1.0.post3+cxx11.abi
[pip3] torchvision==0.16.0.post3+cxx11.abi
[conda] intel-extension-for-pytorch 2.1.40+xpu
"""
"""intel/intel-extension-for-pytorch#718 (a comment's collect_env: one IPEX listed by pip and conda)."""


def test_one_install_listed_by_pip_and_conda_is_not_a_duplicate() -> None:
    assert ("duplicate-distributions", "warning") not in findings_of(IPEX_COLLECT_ENV_TAIL)


def test_two_versions_across_pip_and_conda_are_still_two_installs() -> None:
    text = IPEX_COLLECT_ENV_TAIL.replace("pytorch 2.1.40+xpu", "pytorch 2.0.110+xpu")
    assert ("duplicate-distributions", "warning") in findings_of(text)


def test_one_installer_listing_a_name_twice_is_still_two_installs() -> None:
    text = IPEX_COLLECT_ENV_TAIL.replace(
        "[conda] intel-extension-for-pytorch", "[pip3] intel-extension-for-pytorch=="
    )
    text = text.replace("pytorch== 2.1.40", "pytorch==2.1.40")
    assert ("duplicate-distributions", "warning") in findings_of(text)


# ---------------------------------------------------------------- torch.xpu's assertion on an Intel host

SDNEXT_ARC_NO_XPU = """AssertionError: Torch not compiled with XPU enabled
```

### Version Platform Description

CPU : 13th Gen Intel Core i9-13900K
RAM : 64 GB
GPU : Intel Arc A750 8GB
Python version : 3.12
"""
"""vladmandic/sdnext#4357 ('you have torch cpu version. run webui --use-ipex --reinstall')."""


def test_torch_without_xpu_on_an_intel_gpu_is_the_cpu_only_error() -> None:
    assert CPU_ONLY in findings_of(SDNEXT_ARC_NO_XPU)


def test_the_assertion_without_an_intel_gpu_shown_is_no_cause() -> None:
    text = SDNEXT_ARC_NO_XPU.replace("GPU : Intel Arc A750 8GB\n", "")
    assert CPU_ONLY not in findings_of(text)


def test_the_assertion_beside_an_xpu_build_is_no_cpu_only_error() -> None:
    # then the line came from another interpreter than the torch listed (needs_nvidia's reasoning)
    listed = (
        "\nCollecting environment information...\n\n"
        "Versions of relevant libraries:\n[pip3] torch==2.7.1+xpu\n"
    )
    assert CPU_ONLY not in findings_of(SDNEXT_ARC_NO_XPU + listed)
    assert CPU_ONLY in findings_of(SDNEXT_ARC_NO_XPU + listed.replace("+xpu", "+cpu"))


# ---------------------------------------------------------------- a launcher that found nvidia-smi

KOHYA_CPU_WHEEL = """After updating to v22.1.0 CUDA is no longer available. \
Or so it says when launching Kohya.

> INFO     Version: v22.1.0
>
>INFO     nVidia toolkit detected
>INFO     Torch 2.0.1+cpu
>WARNING  Torch reports CUDA not available
"""
"""bmaltais/kohya_ss#1608 (kohya's check_torch logs 'nVidia toolkit detected' when nvidia-smi is on PATH)."""


def test_a_cpu_wheel_where_the_launcher_found_nvidia_smi_is_the_error() -> None:
    assert torch_version(KOHYA_CPU_WHEEL) == "2.0.1+cpu"
    assert CPU_ONLY in findings_of(KOHYA_CPU_WHEEL)


def test_a_bare_version_there_says_nothing_about_the_wheel() -> None:
    assert CPU_ONLY not in findings_of(KOHYA_CPU_WHEEL.replace("Torch 2.0.1+cpu", "Torch 2.0.1"))


def test_a_cuda_wheel_there_is_fine() -> None:
    assert CPU_ONLY not in findings_of(KOHYA_CPU_WHEEL.replace("2.0.1+cpu", "2.0.1+cu118"))


def test_the_amd_launcher_line_is_not_an_nvidia_driver() -> None:
    text = KOHYA_CPU_WHEEL.replace("nVidia toolkit detected", "AMD toolkit detected")
    assert CPU_ONLY not in findings_of(text)
