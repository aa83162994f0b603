"""Fixes from blind round 20 (#22), each on an excerpt of the real project that showed it:

- PaddleX, PaddlePaddle's inference front-end (paddleocr 3.7.0 is built on it), runs its default PaddlePaddle
  engine on the CPU off NVIDIA GPUs, and reaches AMD, Intel and Apple GPUs through its documented engine swap
  (onnxruntime, OpenVINO, transformers): a swap, not a port;
- PaddlePaddle itself builds for CUDA, the CPU and Baidu's listed accelerators only (its "xpu" is Kunlunxin,
  not Intel): on these GPUs a project written on Paddle runs on the CPU, and the GPU needs another framework.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files, raised

# paddleocr 3.7.0 paddleocr/_common_args.py (trimmed): the device default comes from PaddleX.
PADDLEOCR_ARGS = """\
from paddlex.utils.device import get_default_device, parse_device


def prepare_common_init_args(model_name, common_args):
    device = common_args["device"]
    if device is None:
        device = get_default_device()
    device_type, _ = parse_device(device)
    return {"device": device, "engine": common_args["engine"]}
"""
# paddleocr 3.7.0 paddleocr/_models/base.py (trimmed): a predictor built by PaddleX.
PADDLEOCR_MODEL = """\
from paddlex import create_predictor


class PaddleXPredictorWrapper:
    def __init__(self, model_name, **common_args):
        self.paddlex_predictor = create_predictor(model_name=model_name, **common_args)
"""
# A model written on PaddlePaddle itself (the shape of PaddleOCR 2.x's ppocr/modeling heads).
PADDLE_HEAD = """\
import paddle
from paddle import nn


class CTCHead(nn.Layer):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.fc = nn.Linear(in_channels, out_channels)

    def forward(self, x):
        return paddle.nn.functional.softmax(self.fc(x), axis=2)
"""
# Twin: a local module whose name only starts with "paddle" is not PaddlePaddle.
LOOKALIKE = """\
from paddle_helpers import pad


def run(x):
    return pad(x)
"""

PADDLEOCR = {"paddleocr/_common_args.py": PADDLEOCR_ARGS, "paddleocr/_models/base.py": PADDLEOCR_MODEL}


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_paddlex_front_end_swaps_its_engine_on_these_gpus(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, PADDLEOCR, target)
    assert "framework-import" in raised(result)
    assert result.verdict.risk == "moderate"
    meanings = [f.meaning for f in result.findings if f.rule == "framework-import"]
    assert meanings
    assert all("PaddleX" in m and "engine" in m for m in meanings)


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu", "mps"])
def test_a_paddlepaddle_model_has_no_build_on_these_gpus(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"ppocr/modeling/heads/rec_ctc_head.py": PADDLE_HEAD}, target)
    assert "framework-import" in raised(result)
    assert result.verdict.risk == "higher"
    assert any("PaddlePaddle" in f.meaning for f in result.findings if f.rule == "framework-import")


@pytest.mark.parametrize("files", [PADDLEOCR, {"ppocr/head.py": PADDLE_HEAD}], ids=["paddlex", "paddle"])
def test_paddle_projects_run_on_the_cpu(tmp_path: Path, files: dict[str, str]) -> None:
    # Twin: both have a CPU build.
    result = audit_files(tmp_path, files, "cpu")
    assert result.verdict.risk == "lower"


def test_a_module_named_like_paddle_is_not_paddlepaddle(tmp_path: Path) -> None:
    # Twin: import names match whole dotted parts, so "paddle_helpers" stays plain Python.
    result = audit_files(tmp_path, {"pkg/run.py": LOOKALIKE}, "xpu")
    assert "framework-import" not in raised(result)
    assert result.verdict.risk == "lower"
