"""onnxruntime-cuda-major-mismatch (requires lines as PyPI's onnxruntime-gpu METADATA has them)."""

from __future__ import annotations

from envsnap.rules import onnxruntime
from tests.rules.conftest import cuda_toolkit, package, snapshot, torch

# onnxruntime-gpu 1.31.1 and 1.22.0 METADATA (the CUDA lines of their `cuda`/`cudnn` extras).
ORT_CUDA13 = package(
    "onnxruntime-gpu",
    "1.31.1",
    [
        "numpy>=1.21.6",
        'nvidia-cuda-runtime~=13.0; extra == "cuda"',
        'nvidia-cudnn-cu13~=9.0; extra == "cudnn"',
    ],
)
ORT_CUDA12 = package(
    "onnxruntime-gpu",
    "1.22.0",
    [
        "numpy>=1.21.6",
        'nvidia-cuda-runtime-cu12~=12.0; extra == "cuda"',
        'nvidia-cudnn-cu12~=9.0; extra == "cudnn"',
    ],
)


def test_cuda13_ort_next_to_a_cuda12_torch() -> None:
    snap = snapshot(
        frameworks=torch("2.8.0+cu128", "12.8"),
        packages=(ORT_CUDA13, package("nvidia-cuda-runtime-cu12", "12.8.90")),
    )
    (found,) = onnxruntime.ort_cuda(snap)
    assert found.id == "onnxruntime-cuda-major-mismatch"
    assert found.severity == "warning"
    assert "built for CUDA 13 but only CUDA 12 libraries are installed" in found.title
    assert "pip install 'onnxruntime-gpu[cuda,cudnn]==1.31.1'" in found.fix


def test_ort_without_any_cuda_runtime() -> None:
    (found,) = onnxruntime.ort_cuda(snapshot(packages=(ORT_CUDA12,)))
    assert "no CUDA runtime libraries are installed" in found.title


def test_matching_major_from_wheels_torch_or_toolkit_is_fine() -> None:
    assert (
        list(onnxruntime.ort_cuda(snapshot(frameworks=torch("2.8.0+cu128", "12.8"), packages=(ORT_CUDA12,))))
        == []
    )
    wheel = snapshot(packages=(ORT_CUDA13, package("nvidia-cuda-runtime", "13.0.96")))
    assert list(onnxruntime.ort_cuda(wheel)) == []
    toolkit = snapshot(
        toolkits=cuda_toolkit("13.0", "13.0.88", "/usr/local/cuda-13.0"), packages=(ORT_CUDA13,)
    )
    assert list(onnxruntime.ort_cuda(toolkit)) == []


def test_cpu_onnxruntime_is_not_judged() -> None:
    assert (
        list(onnxruntime.ort_cuda(snapshot(packages=(package("onnxruntime", "1.22.0", ["numpy>=1.21.6"]),))))
        == []
    )
