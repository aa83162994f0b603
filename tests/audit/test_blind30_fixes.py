"""Fixes from blind round 30 (#22), each on an excerpt of the real project that showed it (mistral_inference
1.6.0 and deepspeed-mii 0.3.3 wheels; PyPI, see tests/data/projects/real-*/SOURCE.md):

- mistral-inference requires xformers and calls ``memory_efficient_attention``: on ROCm that is an install
  from the PyTorch ROCm index (published wheels, CK kernels), as the corpus's own xformers port says (lower),
  not a moderate swap. The table's ROCm row for xformers now says lower risk.
- deepspeed-mii requires ``deepspeed-kernels``, FastGen's pre-compiled kernel wheel built for NVIDIA sm_80+
  only ("our custom kernels do not currently support AMD GPUs", DeepSpeed-MII#345): read as DeepSpeed
  (whose op builders hipify), it was moderate everywhere. A table row of its own makes it a rewrite.
Each case keeps its twin that must not change.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.audit.conftest import audit_files, raised

# mistral_inference 1.6.0 dist-info/METADATA (the requirement lines) and transformer_layers.py (trimmed).
MISTRAL_METADATA = """\
Metadata-Version: 2.3
Name: mistral_inference
Version: 1.6.0
Requires-Python: >=3.9.10,<4.0.0
Requires-Dist: fire (>=0.6.0)
Requires-Dist: mistral_common (>=1.5.4)
Requires-Dist: safetensors (>=0.4.0)
Requires-Dist: xformers (>=0.0.24)
Description-Content-Type: text/markdown
"""
MISTRAL_LAYERS = """\
import torch
from torch import nn
from xformers.ops.fmha import memory_efficient_attention  # type: ignore
from xformers.ops.fmha.attn_bias import BlockDiagonalMask


class Attention(nn.Module):
    def forward(self, xq, key, val, mask):
        # xformers requires (B=1, S, H, D)
        xq, key, val = xq[None, ...], key[None, ...], val[None, ...]
        output = memory_efficient_attention(xq, key, val, mask)
        return output
"""


def _mistral(metadata: str = MISTRAL_METADATA, layers: str = MISTRAL_LAYERS) -> dict[str, str]:
    return {
        "mistral_inference-1.6.0.dist-info/METADATA": metadata,
        "mistral_inference/__init__.py": "",
        "mistral_inference/transformer_layers.py": layers,
    }


def test_required_xformers_on_rocm_is_an_install(tmp_path: Path) -> None:
    result = audit_files(tmp_path, _mistral(), "rocm:gfx942")
    assert result.verdict.risk == "lower"
    assert not {"cuda-only-import", "cuda-only-requirement"} & raised(result)


def test_required_xformers_off_rocm_stays_a_swap(tmp_path: Path) -> None:
    # Twin: xformers has no Intel or Apple backend; the attention swap to SDPA is still an edit.
    for target in ("xpu", "mps"):
        result = audit_files(tmp_path / target, _mistral(), target)
        assert result.verdict.risk == "moderate", target
        assert "cuda-only-import" in raised(result), target


def test_required_flash_attn_on_rocm_stays_moderate(tmp_path: Path) -> None:
    # Twin: the nearest package, flash-attn, needs its own ROCm build (CK or Triton backend): still moderate.
    metadata = MISTRAL_METADATA.replace("xformers (>=0.0.24)", "flash-attn (>=2.5)")
    layers = MISTRAL_LAYERS.replace(
        "from xformers.ops.fmha import memory_efficient_attention  # type: ignore\n"
        "from xformers.ops.fmha.attn_bias import BlockDiagonalMask\n",
        "from flash_attn import flash_attn_func as memory_efficient_attention\n",
    )
    result = audit_files(tmp_path, _mistral(metadata, layers), "rocm:gfx942")
    assert result.verdict.risk == "moderate"


# deepspeed-mii 0.3.3 dist-info/METADATA (the requirement lines) and mii/modeling/models.py (whole, less the
# licence header).
MII_METADATA = """\
Metadata-Version: 2.4
Name: deepspeed-mii
Version: 0.3.3
Requires-Dist: accelerate
Requires-Dist: deepspeed>=0.15.0
Requires-Dist: deepspeed-kernels
Requires-Dist: torch
Requires-Dist: transformers
"""
MII_MODELS = """\
from deepspeed.inference import build_hf_engine, InferenceEngineV2

from mii.config import ModelConfig
from mii.constants import ModelProvider
from mii.utils import init_distributed


def load_model(model_config: ModelConfig) -> InferenceEngineV2:
    init_distributed(model_config)
    provider = model_config.provider
    if provider == ModelProvider.HUGGING_FACE:
        inference_engine = build_hf_engine(
            path=model_config.model_name_or_path,
            engine_config=model_config.inference_engine_config)
    else:
        raise ValueError(f"Unknown model provider {provider}")

    return inference_engine
"""


def _mii(metadata: str = MII_METADATA) -> dict[str, str]:
    return {
        "deepspeed_mii-0.3.3.dist-info/METADATA": metadata,
        "mii/__init__.py": "",
        "mii/modeling/__init__.py": "",
        "mii/modeling/models.py": MII_MODELS,
    }


def test_required_deepspeed_kernels_is_a_rewrite(tmp_path: Path) -> None:
    for target in ("rocm:gfx942", "xpu", "mps"):
        result = audit_files(tmp_path / target.replace(":", "_"), _mii(), target)
        assert result.verdict.risk == "higher", target
        assert "cuda-only-requirement" in raised(result), target


def test_deepspeed_alone_runs_on_rocm(tmp_path: Path) -> None:
    # Twin: DeepSpeed without the FastGen kernel wheel runs on a ROCm torch as installed, its op builders
    # hipifying what they build (lower since blind round 48, resemble-enhance); on XPU it stays a swap.
    metadata = MII_METADATA.replace("Requires-Dist: deepspeed-kernels\n", "")
    assert metadata != MII_METADATA
    assert audit_files(tmp_path / "rocm", _mii(metadata), "rocm:gfx942").verdict.risk == "lower"
    assert audit_files(tmp_path / "xpu", _mii(metadata), "xpu").verdict.risk == "moderate"


def test_a_requirement_name_on_hostile_input(tmp_path: Path) -> None:
    # A huge, marked-up name that only starts like the package matches nothing and is not echoed back.
    hostile = "Requires-Dist: deepspeed-kernels<script>\x1b[31m" + "a" * 100_000 + "\n"
    metadata = MII_METADATA.replace("Requires-Dist: deepspeed-kernels\n", hostile)
    metadata = metadata.replace("Requires-Dist: deepspeed>=0.15.0\n", "")
    start = time.perf_counter()
    result = audit_files(tmp_path, _mii(metadata), "rocm:gfx942")
    assert time.perf_counter() - start < 30
    assert not any("<script>" in f.meaning for f in result.findings)
