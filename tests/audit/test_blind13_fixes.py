"""Fixes from blind round 13 (#22), each on an excerpt of the real project that showed it:

- a parameter default built as ``torch.device('cuda')`` is a default like ``device='cuda'`` (timm 1.0.15
  data/loader.py PrefetchLoader);
- the fallback of a settings lookup, ``getattr(args, 'device', 'cuda')``, is a default the user's setting
  overrides (timm 1.0.15 utils/distributed.py);
- ``torch.cuda.amp.GradScaler()`` in the handler of a ``torch.amp.GradScaler(device=...)`` that catches only
  AttributeError/TypeError is an older torch's fallback (timm 1.0.15 utils/cuda.py NativeScaler);
- an import behind ``if use_deepspeed:``, a parameter that defaults to False, is an opt-in (coqui-tts 0.26
  tts/layers/xtts/gpt.py).
Each case keeps its twin that must not change.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from envsnap.audit.scanners.python import scan_python
from tests.audit.conftest import audit_files, raised

# timm 1.0.15 timm/data/loader.py (PrefetchLoader, trimmed).
TIMM_LOADER = """\
import torch


class PrefetchLoader:
    def __init__(self, loader, device: torch.device = torch.device('cuda'), fp16=False):
        self.loader = loader
        self.device = device

    def __iter__(self):
        for next_input, next_target in self.loader:
            yield next_input.to(device=self.device, non_blocking=True), next_target
"""

# timm 1.0.15 timm/utils/distributed.py (init_distributed_device, trimmed).
TIMM_DISTRIBUTED = """\
def init_distributed_device(args):
    result = init_distributed_device_so(
        device=getattr(args, 'device', 'cuda'),
        dist_backend=getattr(args, 'dist_backend', None),
    )
    return result
"""

# timm 1.0.15 timm/utils/cuda.py (NativeScaler.__init__).
TIMM_SCALER = """\
import torch


class NativeScaler:
    state_dict_key = "amp_scaler"

    def __init__(self, device='cuda'):
        try:
            self._scaler = torch.amp.GradScaler(device=device)
        except (AttributeError, TypeError) as e:
            self._scaler = torch.cuda.amp.GradScaler()
"""

# coqui-tts 0.26.0 TTS/tts/layers/xtts/gpt.py (GPT.init_gpt_for_inference, trimmed) and a pyproject that,
# like coqui-tts's, does not name deepspeed.
COQUI_GPT = """\
import torch
from torch import nn


class GPT(nn.Module):
    def init_gpt_for_inference(self, kv_cache=True, use_deepspeed=False):
        self.gpt_inference = build(self.gpt, kv_cache=kv_cache)
        if use_deepspeed:
            import deepspeed

            self.ds_engine = deepspeed.init_inference(
                model=self.gpt_inference.half(),
                mp_size=1,
                dtype=torch.float32,
                replace_with_kernel_inject=True,
            )
            self.gpt_inference = self.ds_engine.module.eval()
"""
COQUI_PYPROJECT = """\
[project]
name = "coqui-tts"
version = "0.26.0"
dependencies = ["torch>=2.1", "torchaudio>=2.1.0", "transformers>=4.47.0", "numpy>=1.26.0"]
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_torch_device_parameter_default_is_a_setting(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"timm/data/loader.py": TIMM_LOADER}, target)
    assert raised(result) == set()
    assert "default-cuda-device" in {f.rule for f in result.findings}
    assert result.verdict.risk == "lower"
    # Twin: the same torch.device('cuda') built in the body binds the loader to CUDA.
    body = TIMM_LOADER.replace(
        "device: torch.device = torch.device('cuda'), fp16=False", "fp16=False"
    ).replace("self.device = device", "self.device = torch.device('cuda')")
    bound = audit_files(tmp_path / "body", {"timm/data/loader.py": body}, target)
    assert "hardcoded-cuda-device" in raised(bound)
    assert bound.verdict.risk == "moderate"


def test_the_fallback_of_a_settings_lookup_is_a_default(tmp_path: Path) -> None:
    result = audit_files(tmp_path, {"timm/utils/distributed.py": TIMM_DISTRIBUTED}, "xpu")
    assert raised(result) == set()
    assert result.verdict.risk == "lower"
    kinds = [s.kind for s in scan_python("d.py", TIMM_DISTRIBUTED)]
    assert kinds.count("device-default") == 1
    env = "import os\nx = torch.zeros(2, device=os.environ.get('DEVICE', 'cuda'))\n"
    assert [s.kind for s in scan_python("e.py", env)].count("device-default") == 1
    # Twin: a helper of the project with the same arguments is no lookup; its 'cuda' is passed as is.
    helper = TIMM_DISTRIBUTED.replace("getattr(args, 'device', 'cuda')", "pick(args, 'device', 'cuda')")
    bound = audit_files(tmp_path / "helper", {"timm/utils/distributed.py": helper}, "xpu")
    assert "hardcoded-cuda-device" in raised(bound)
    assert bound.verdict.risk == "moderate"


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_an_older_torchs_grad_scaler_fallback(tmp_path: Path, target: str) -> None:
    result = audit_files(tmp_path, {"timm/utils/cuda.py": TIMM_SCALER}, target)
    assert raised(result) == set()
    scaler = next(f for f in result.findings if f.rule == "cuda-grad-scaler")
    assert "older torch's fallback" in scaler.meaning
    assert result.verdict.risk == "lower"
    # Twins: a handler that also catches RuntimeError may run on the target, and a try body without
    # torch's device-generic API is no version fallback: the CUDA scaler is what runs.
    for name, text in {
        "runtime": TIMM_SCALER.replace("(AttributeError, TypeError)", "(AttributeError, RuntimeError)"),
        "helper": TIMM_SCALER.replace("torch.amp.GradScaler(device=device)", "make_scaler(device)"),
    }.items():
        other = audit_files(tmp_path / name, {"timm/utils/cuda.py": text}, target)
        assert "cuda-grad-scaler" in raised(other), name
        assert other.verdict.risk == "moderate", name


@pytest.mark.parametrize("target", ["rocm:gfx942", "xpu"])
def test_an_import_behind_a_switch_that_is_off_by_default(tmp_path: Path, target: str) -> None:
    files = {"pyproject.toml": COQUI_PYPROJECT, "TTS/tts/layers/xtts/gpt.py": COQUI_GPT}
    result = audit_files(tmp_path, files, target)
    assert raised(result) == set()
    deepspeed = next(f for f in result.findings if f.rule == "cuda-only-import")
    assert "switch that is off by default" in deepspeed.meaning
    assert result.verdict.risk == "lower"
    # Twin: the same switch on by default makes DeepSpeed's kernel injection the path that runs.
    on_by_default = COQUI_GPT.replace("use_deepspeed=False", "use_deepspeed=True")
    on = {**files, "TTS/tts/layers/xtts/gpt.py": on_by_default}
    other = audit_files(tmp_path / "on", on, target)
    if target == "rocm:gfx942":
        # DeepSpeed runs on a ROCm torch as installed (blind round 48): the switch changes nothing there.
        assert other.verdict.risk == "lower"
    else:
        assert "cuda-only-import" in raised(other)
        assert other.verdict.risk == "moderate"
