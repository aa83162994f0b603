"""The readers added after blind round 11 (sycl-ls device lines, ggml's SYCL device list and table,
system_profiler's Metal GPU in text and -json, torch's MPS answer and Apple GPU names, TensorFlow's TensorRT
mismatch lines, docker's missing --gpus runtime) get the hostile-input checks
the other readers have: terminal escapes, Rich markup, a huge field and a secret in the paste never reach
the output as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.pasted import snapshot_of
from tests.security.conftest import HOSTILE, SECRET, check_paste_safely

PASTES = {
    "sycl-ls": (
        f"[opencl:gpu][opencl:1] Intel(R) OpenCL Graphics, Intel(R) {HOSTILE[:120]} OpenCL 3.0 NEO  [23.17]\n"
        f"[level_zero:gpu][level_zero:0] Intel(R) Level-Zero, Intel(R) Arc {HOSTILE} 12.55.8 [1.3.29735]\n"
        f"[cuda:gpu][cuda:0] NVIDIA CUDA BACKEND, NVIDIA GeForce RTX 3090 8.6 [{HOSTILE[:300]}]\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "system-profiler-text": (
        f"      Chipset Model: Apple M2 {HOSTILE[:200]}\n"
        f"      Metal Support: Metal 3 {HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
    "system-profiler-json": (
        f'      "_name" : "Apple {HOSTILE[:60]}",\n'
        f'      "spdisplays_mtlgpufamilysupport" : "spdisplays_metal3 {HOSTILE[:300]}",\n'
        f'      "sppci_model" : "Apple M1 {HOSTILE}",\nHF_TOKEN={SECRET}\n'
    ),
    "tensorrt-mismatch": (
        f"WARNING:tensorflow:TensorRT mismatch. Compiled against version 5.0.2, but loaded 5.1.2. {HOSTILE}\n"
        f"Linked TensorRT version: (8, 4, 3) {HOSTILE[:300]}\nLoaded TensorRT version: (8, 6, 1)\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "ggml-sycl-devices": (
        f"  Device 0: Intel(R) Arc(TM) {HOSTILE[:80]},     compute capability 1.3,\n"
        f"| 0|[level_zero:gpu:0]|   Intel(R) Arc {HOSTILE[:90]}|   1.3|   512| {HOSTILE}|\n"
        f"HF_TOKEN={SECRET}\n"
    ),
    "mps-answer": (
        f">>> torch.backends.mps.is_available()  # {HOSTILE}\nTrue\n"
        f"torch.backends.mps: True {HOSTILE[:300]}\nGPU name: Apple M2 {HOSTILE[:200]}\nHF_TOKEN={SECRET}\n"
    ),
    "docker-no-gpu-runtime": (
        f'docker: Error response from daemon: could not select device driver "{HOSTILE[:90]}" with '
        f"capabilities: [[gpu]]. {HOSTILE}\nHF_TOKEN={SECRET}\n"
    ),
}


@pytest.mark.parametrize("name", sorted(PASTES))
def test_a_hostile_paste_is_read_and_shown_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(PASTES[name])
    check_paste_safely(capsys, path)


def test_the_hostile_sycl_paste_still_gives_its_gpus() -> None:
    """Not refused and not merely survived: the hostile sycl-ls lines still give the NVIDIA GPU with its
    capability, and the Intel name stays clipped."""
    accelerators = snapshot_of(PASTES["sycl-ls"]).accelerators
    assert accelerators is not None
    assert accelerators.nvidia is not None
    assert accelerators.nvidia.devices is not None
    assert [(d.name, d.compute_capability) for d in accelerators.nvidia.devices] == [
        ("NVIDIA GeForce RTX 3090", "8.6")
    ]
    assert accelerators.intel is not None
    assert accelerators.intel.devices is not None
    assert all(len(d.name or "") <= 80 for d in accelerators.intel.devices)


@pytest.mark.parametrize("name", ["system-profiler-text", "system-profiler-json"])
def test_the_hostile_system_profiler_pastes_still_give_the_macs_gpu(name: str) -> None:
    accelerators = snapshot_of(PASTES[name]).accelerators
    assert accelerators is not None
    assert accelerators.mps is not None
    assert (accelerators.mps.chip or "").startswith("Apple ")
    assert len(accelerators.mps.chip or "") <= 80
