"""The lines torch, NVML and HIP print around a report become evidence, and the facts they state."""

from __future__ import annotations

import pytest

from envsnap.importers.auto import parse_auto
from envsnap.importers.messages import cuda_of_driver_api, scan

NOW = "2026-01-01T00:00:00Z"


@pytest.mark.parametrize(("api", "cuda"), [(10010, "10.1"), (9020, "9.2"), (11040, "11.4"), (12080, "12.8")])
def test_cuda_driver_api_versions(api: int, cuda: str) -> None:
    assert cuda_of_driver_api(api) == cuda


def test_driver_too_old_sets_the_cuda_ceiling_even_when_wrapped() -> None:
    found = scan(
        "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old\n"
        "(found version 10010). Please update your GPU driver"
    )
    assert found.cuda_driver_version == "10.1"
    assert [m.kind for m in found.messages] == ["driver-too-old", "cuda-init"]


def test_sm_not_compatible_gives_capability_and_arch_list() -> None:
    found = scan(
        "/x/torch/cuda/__init__.py:230: UserWarning: \n"
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 "
        "sm_86 sm_90.\nIf you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check"
    )
    assert [(d.name, d.compute_capability) for d in found.devices] == [("NVIDIA GeForce RTX 5090", "12.0")]
    assert found.arch_list == ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")


def test_too_old_gpu_gives_its_capability() -> None:
    found = scan(
        "UserWarning: Found GPU0 Tesla K80 which is of cuda capability 3.7.\n"
        "    PyTorch no longer supports this GPU because it is too old.\n"
        "    The minimum cuda capability supported by this library is 5.0."
    )
    assert [(d.index, d.name, d.compute_capability) for d in found.devices] == [(0, "Tesla K80", "3.7")]
    assert found.messages[0].kind == "gpu-too-old"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "no-kernel-image",
        ),
        ("RuntimeError: HIP error: invalid device function", "hip-invalid-device-function"),
        ("Failed to initialize NVML: Driver/library version mismatch", "nvml-mismatch"),
        ("AssertionError: Torch not compiled with CUDA enabled", "torch-not-compiled-with-cuda"),
        ("CUDA driver version is insufficient for CUDA runtime version", "driver-insufficient"),
    ],
)
def test_error_lines_are_recorded_by_kind(line: str, kind: str) -> None:
    found = scan(f"some text\n{line}\nmore text")
    assert [m.kind for m in found.messages] == [kind]
    assert found.messages[0].text == line


def test_messages_attach_to_the_named_gpu_of_the_report() -> None:
    text = (
        "PyTorch version: 1.13.1+cu117\nCUDA used to build PyTorch: 11.7\nIs CUDA available: True\n"
        "GPU models and configuration:\nGPU 0: NVIDIA GeForce RTX 3090\nGPU 1: Tesla K80\n\n"
        "Nvidia driver version: 470.82.01\n\n"
        "Found GPU1 Tesla K80 which is of cuda capability 3.7. PyTorch no longer supports this GPU\n"
    )
    snap = parse_auto(text, "k80.txt", captured_at=NOW)
    devices = snap.accelerators.nvidia.devices if snap.accelerators and snap.accelerators.nvidia else ()
    assert [(d.index, d.name, d.compute_capability) for d in devices or ()] == [
        (0, "NVIDIA GeForce RTX 3090", None),
        (1, "Tesla K80", "3.7"),
    ]
    assert snap.meta.origin
    assert snap.meta.origin.messages
    assert snap.meta.origin.messages[0].kind == "gpu-too-old"


def test_nvml_mismatch_alone_is_a_report() -> None:
    snap = parse_auto(
        "$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n", "n.txt", captured_at=NOW
    )
    nvidia = snap.accelerators.nvidia if snap.accelerators else None
    assert nvidia is not None
    assert nvidia.library_version_mismatch is True


def test_a_huge_message_line_is_clipped() -> None:
    found = scan(
        "RuntimeError: CUDA error: no kernel image is available for execution on the device " + "x" * 100_000
    )
    assert len(found.messages[0].text) <= 300


def test_rocm_missing_code_object_is_the_hip_kind() -> None:
    found = scan("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!")
    assert [m.kind for m in found.messages] == ["hip-invalid-device-function"]


def test_export_lines_of_the_variables_rules_read() -> None:
    text = (
        "$ export HSA_OVERRIDE_GFX_VERSION=10.3.0\nexport HF_TOKEN=hf_secret\nset CUDA_VISIBLE_DEVICES=1\n"
        "RuntimeError: HIP error: invalid device function\n"
    )
    snap = parse_auto(text, "env.txt", captured_at=NOW)
    assert snap.environment
    assert snap.environment.variables == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "CUDA_VISIBLE_DEVICES": "1"}
    assert snap.meta.origin
    assert "shell environment" in (snap.meta.origin.sections or ())


def test_cuda_container_banner_without_a_driver_is_no_driver() -> None:
    """NVIDIA's CUDA image banner when `docker run` got no GPU
    (prs-eth/PanopticSegForLargeScalePointCloud#20)."""
    text = (
        "$ docker run <image_name>\n\n==========\n== CUDA ==\n==========\n\nCUDA Version 11.1.1\n\n"
        "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
        "   Use the NVIDIA Container Toolkit to start this container with GPU support; see\n"
    )
    found = scan(text)
    assert [m.kind for m in found.messages] == ["no-nvidia-driver"]
    snap = parse_auto(text, "banner.txt", captured_at=NOW)
    assert snap.meta.origin
    assert [m.kind for m in snap.meta.origin.messages or ()] == ["no-nvidia-driver"]


def test_an_export_a_reply_advises_is_not_the_reporters_environment() -> None:
    """pytorch/pytorch#164346: a maintainer's reply quoted under the report."""
    advice = (
        "janimo · comment · 2025-10-02\n"
        "Until gfx1151 support is enabled use `export HSA_OVERRIDE_GFX_VERSION=11.0.0` before running "
        "your app "
        "to see if it helps/\n"
        "RuntimeError: HIP error: invalid device function\n"
    )
    snap = parse_auto(advice, "advice.txt", captured_at=NOW)
    assert snap.environment is None or not snap.environment.variables
    for said in (
        "you can try setting `export HSA_OVERRIDE_GFX_VERSION=10.3.0`\n",
        "Please export CUDA_VISIBLE_DEVICES=0\n",
    ):
        snap = parse_auto(said + advice, "advice.txt", captured_at=NOW)
        assert snap.environment is None or not snap.environment.variables, said
    # what the reporter ran (or tried) stays their environment
    for ran in (
        "I tried export HSA_OVERRIDE_GFX_VERSION=10.3.0 and it still fails\n",
        "$ export HSA_OVERRIDE_GFX_VERSION=10.3.0\n",
        "I have `export HSA_OVERRIDE_GFX_VERSION=10.3.0` in my .bashrc\n",
    ):
        snap = parse_auto(
            ran + "RuntimeError: HIP error: invalid device function\n", "ran.txt", captured_at=NOW
        )
        assert snap.environment is not None
        assert snap.environment.variables == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, ran
