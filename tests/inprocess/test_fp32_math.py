"""TF32 and the other float32 math settings: recorded with the bundle, compared on verify.

A reference recorded on an Ampere-or-newer GPU with TF32 allowed (cuDNN's default, or
``set_float32_matmul_precision("high")``) carries TF32's rounding; a target without it differs by
about 1e-3 relative, which float32's tolerance calls a failure. These tests record on the CPU a
model whose linear layers read their inputs with TF32's 10 mantissa bits (what the tensor cores
do), mark the bundle as recorded on cuda with the setting on (what such a machine writes), and
verify the plain float32 model against it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn

import envsnap
from envsnap.inprocess.fp32_math import between, differences, known, reduced
from envsnap.inprocess.numerics import read_numerics


def _tf32(x: torch.Tensor) -> torch.Tensor:
    """Round float32 to TF32 (10 explicit mantissa bits), to nearest, as cvt.rna.tf32.f32 does."""
    bits = x.contiguous().view(torch.int32)
    return ((bits + (1 << 12)) & ~((1 << 13) - 1)).view(torch.float32)


def _mlp() -> nn.Sequential:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 16))
    with torch.no_grad():  # weights TF32 can hold exactly: the inputs' rounding is the difference
        for p in model.parameters():
            p.copy_(_tf32(p))
    return model.eval()


def _inputs() -> torch.Tensor:
    return torch.randn(32, 64, generator=torch.Generator().manual_seed(1))


def _as_tensor_cores(model: nn.Module) -> list[Any]:
    """Pre-hooks rounding every Linear's input to TF32: the reference's matmuls read 10 bits."""
    return [
        m.register_forward_pre_hook(lambda _m, args: (_tf32(args[0]),))
        for m in model.modules()
        if isinstance(m, nn.Linear)
    ]


def _recorded_on_cuda(path: Path, **settings: str) -> None:
    """Make the bundle say what a GPU machine with these settings writes (device cuda)."""
    manifest_path = path / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["measurements"]["device"] = "cuda"
    manifest["numerics"].update(settings)
    manifest_path.write_text(json.dumps(manifest))


@pytest.fixture(scope="module")
def tf32_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tf32") / "b"
    model = _mlp()
    hooks = _as_tensor_cores(model)
    with torch.no_grad(), envsnap.record(path, model=model, environment="none", measure=False):
        model(_inputs())
    for hook in hooks:
        hook.remove()
    return path


@pytest.fixture
def bundle(tf32_bundle: Path, tmp_path: Path) -> Path:
    import shutil

    copy = tmp_path / "b"
    shutil.copytree(tf32_bundle, copy)
    return copy


def _last(path: Path, model: nn.Module) -> Any:
    v = envsnap.verify(path, model=model, environment="none", slow=None)
    with torch.no_grad(), v:
        model(_inputs())
    return v.report


def test_the_block_settings_go_into_the_bundle(bundle: Path) -> None:
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["numerics"] == read_numerics()
    assert manifest["numerics"]["cudnn.allow_tf32"] == str(torch.backends.cudnn.allow_tf32)


def test_settings_are_read_as_they_are_now() -> None:
    before = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("high")
        assert read_numerics()["float32_matmul_precision"] == "high"
    finally:
        torch.set_float32_matmul_precision(before)
    assert read_numerics()["float32_matmul_precision"] == before


def test_tf32_rounding_fails_float32s_tolerance_when_no_side_allowed_it(bundle: Path) -> None:
    _recorded_on_cuda(bundle, **{"cuda.matmul.allow_tf32": "False", "float32_matmul_precision": "highest"})
    report = _last(bundle, _mlp())
    assert report.verdict == "fail"
    assert report.first_divergence is not None
    assert report.first_divergence.key.startswith("0#")


def test_a_reference_with_tf32_matmuls_passes_at_tf32s_tolerance_and_says_so(bundle: Path) -> None:
    _recorded_on_cuda(bundle, **{"cuda.matmul.allow_tf32": "True"})
    report = _last(bundle, _mlp())
    assert report.verdict == "pass-with-limitations", report.reasons
    said = " ".join(report.limitations)
    assert "TF32's tolerance" in said
    assert "cuda.matmul.allow_tf32=True on cuda" in said
    assert "allow_tf32 = False" in said  # what to do to compare float32 like for like
    checks = {c.key: c for m in report.modules for c in m.outputs}
    assert checks["0#0"].tolerance_from.startswith("tf32 default")  # the Linear: its own addmm
    assert checks["1#0"].tolerance_from.startswith("inherited from 0")  # the GELU after it
    assert report.reference.numerics["cuda.matmul.allow_tf32"] == "True"
    assert "cuda.matmul.allow_tf32 True → False" in report.table()


def test_set_float32_matmul_precision_high_allows_it_too(bundle: Path) -> None:
    _recorded_on_cuda(bundle, float32_matmul_precision="high")
    assert _last(bundle, _mlp()).verdict == "pass-with-limitations"


def test_a_real_change_still_fails_under_tf32s_tolerance(bundle: Path) -> None:
    _recorded_on_cuda(bundle, **{"cuda.matmul.allow_tf32": "True"})
    model = _mlp()
    with torch.no_grad():
        model[2].weight.mul_(1.02)  # type: ignore[operator]  # a 2% weight change: ~20× TF32's rounding
    report = _last(bundle, model)
    assert report.verdict == "fail"
    assert report.first_divergence is not None
    assert report.first_divergence.key.startswith("2#")


def test_cudnn_tf32_does_not_reach_a_model_without_convolutions(bundle: Path) -> None:
    _recorded_on_cuda(bundle, **{"cudnn.allow_tf32": "True", "cuda.matmul.allow_tf32": "False"})
    assert _last(bundle, _mlp()).verdict == "fail"


def test_nvidia_tf32_override_zero_forbids_it_underneath() -> None:
    settings = {"cuda.matmul.allow_tf32": "True", "cudnn.allow_tf32": "True"}
    assert set(reduced(settings, "cuda")) == {"matmul", "cudnn"}
    assert reduced({**settings, "NVIDIA_TF32_OVERRIDE": "0"}, "cuda") == {}
    assert reduced(settings, "cpu") == {}  # torch's TF32 settings act on CUDA devices only


def test_either_side_allowing_it_is_enough() -> None:
    on, off = {"cuda.matmul.allow_tf32": "True"}, {"cuda.matmul.allow_tf32": "False"}
    assert between(off, "cuda", on, "cuda")["matmul"][1].startswith("TF32 matmuls allowed on the target")
    assert "the reference" in between(on, "cuda", off, "cpu")["matmul"][1]
    assert between(off, "cuda", off, "cuda") == {}


def test_hostile_settings_in_a_bundle_are_dropped_not_shown() -> None:
    hostile = {
        "cudnn.allow_tf32": "[red]True[/red]",
        "cudnn.benchmark": "x" * 100_000,
        "NVIDIA_TF32_OVERRIDE": "hf_" + "a" * 34,
        "AWS_SECRET_ACCESS_KEY": "False",
        "cuda.matmul.allow_tf32": "True\x1b[2J",
        "default_dtype": "float32",
    }
    assert known(hostile) == {"default_dtype": "float32"}
    assert differences(known(hostile), {"default_dtype": "float64", "cudnn.benchmark": "True"}) == [
        "default_dtype float32 → float64"
    ]


def test_a_hostile_bundle_setting_never_reaches_the_report(bundle: Path) -> None:
    secret = "ghp_" + "b" * 36
    _recorded_on_cuda(bundle, **{"cuda.matmul.allow_tf32": f"[link=x]{secret}", "cudnn.benchmark": secret})
    report = _last(bundle, _mlp())
    text = report.table() + report.to_yaml()
    assert secret not in text
    assert "[link=x]" not in text
    assert "cuda.matmul.allow_tf32" not in report.reference.numerics
    assert report.verdict == "fail"  # an unreadable setting allows nothing
