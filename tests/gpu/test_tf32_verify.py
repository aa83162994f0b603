"""TF32 on a real GPU: a recording made with TF32 matmuls verifies against float32 ones with TF32 named.

On Ampere and newer, ``torch.backends.cuda.matmul.allow_tf32 = True`` makes float32 matmuls read
10 mantissa bits; the same model with it off differs by ~1e-3 relative. verify must pass that at
TF32's tolerance and say so (fp32_math.py), and still pass like for like when neither side has it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu


def test_a_tf32_recording_verifies_against_float32_with_tf32_named(tmp_path: Path) -> None:
    import torch
    from torch import nn

    import envsnap

    if torch.cuda.get_device_capability() < (8, 0):
        pytest.skip("TF32 needs compute capability 8.0 or newer (Ampere)")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 512), nn.GELU(), nn.Linear(512, 512)).cuda().eval()
    x = torch.randn(64, 512, device="cuda", generator=torch.Generator("cuda").manual_seed(1))
    before = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = True
        with torch.no_grad():
            tf32 = model(x)
        with torch.no_grad(), envsnap.record(tmp_path / "tf32", model=model, environment="none"):
            model(x)
        torch.backends.cuda.matmul.allow_tf32 = False
        with torch.no_grad():
            fp32 = model(x)
        assert not torch.allclose(tf32, fp32, rtol=1.3e-6, atol=1e-5)  # TF32 really ran
        v = envsnap.verify(tmp_path / "tf32", model=model, environment="none", slow=None)
        with torch.no_grad(), v:
            model(x)
        assert v.report.verdict == "pass-with-limitations", v.report.reasons
        assert any("TF32's tolerance" in line for line in v.report.limitations)
        assert v.report.reference.numerics["cuda.matmul.allow_tf32"] == "True"
        assert v.report.target.numerics["cuda.matmul.allow_tf32"] == "False"

        with torch.no_grad(), envsnap.record(tmp_path / "fp32", model=model, environment="none"):
            model(x)
        v = envsnap.verify(tmp_path / "fp32", model=model, environment="none", slow=None)
        with torch.no_grad(), v:
            model(x)
        assert not any("TF32" in line for line in v.report.limitations)
        assert v.report.verdict in ("pass", "pass-with-limitations"), v.report.reasons
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before
