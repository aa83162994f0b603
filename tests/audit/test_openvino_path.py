"""OpenVINO's own runtime is an Intel GPU path (#22 blind round 49, rtmlib 0.0.16 on XPU: one level off).

rtmlib picks its inference backend per device: ONNX Runtime's CUDA/ROCm/CoreML providers, OpenCV DNN, or
OpenVINO, whose ``core.compile_model(..., device_name="GPU")`` runs on Intel GPUs. envsnap knew OpenVINO only
as ONNX Runtime's ``OpenVINOExecutionProvider`` and rated the provider table an edit on XPU (moderate). Twins:
the same table without the OpenVINO backend stays an edit; OpenVINO names no path on AMD or Apple GPUs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files

# rtmlib 0.0.16 rtmlib/tools/base.py (trimmed: the backend table and the session set-up).
BASE = """\
import os
import cv2


RTMLIB_SETTINGS = {
    'onnxruntime': {
        'cpu': 'CPUExecutionProvider',
        'cuda': 'CUDAExecutionProvider',
        'rocm': 'ROCMExecutionProvider',
        'mps': 'CoreMLExecutionProvider',
    },
    'openvino': {
        'cpu': 'CPU',
        'gpu': 'GPU',
        'npu': 'NPU',
    },
}


class BaseTool:
    def __init__(self, onnx_model=None, backend='onnxruntime', device='cpu'):
        if backend == 'onnxruntime':
            import onnxruntime as ort
            providers = RTMLIB_SETTINGS[backend][device]
            self.session = ort.InferenceSession(path_or_bytes=onnx_model, providers=[providers])
        elif backend == 'openvino':
            from openvino import Core
            core = Core()
            model_onnx = core.read_model(model=onnx_model)
            ov_device = RTMLIB_SETTINGS['openvino'].get(device, device.upper())
            self.compiled_model = core.compile_model(model=model_onnx, device_name=ov_device)
"""
WITHOUT_OPENVINO = BASE[: BASE.index("        elif backend == 'openvino':")]


def test_openvino_is_an_intel_gpu_path(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"rtmlib/tools/base.py": BASE}, "xpu")
    assert report.verdict.risk == "lower"
    assert any("OpenVINO" in line for line in report.verdict.supported)


def test_twin_without_openvino_the_provider_table_is_an_edit(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"rtmlib/tools/base.py": WITHOUT_OPENVINO}, "xpu")
    assert report.verdict.risk == "moderate"
    assert not report.verdict.supported


@pytest.mark.parametrize("target", ["rocm:gfx942", "mps"])
def test_twin_openvino_is_no_path_on_other_gpus(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"rtmlib/tools/base.py": BASE}, target)
    assert not any("OpenVINO" in line for line in report.verdict.supported)
