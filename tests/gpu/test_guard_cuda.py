"""envsnap.guard(device="cuda") on a real GPU: a model on CUDA with one submodule left on the CPU."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu

WIDTH, SEQ, BATCH = 8, 5, 2


def test_the_guard_names_the_one_cpu_submodule() -> None:
    import torch
    from torch import nn

    import envsnap

    class Positions(nn.Module):
        """Left on the CPU: its index comes from torch.arange without a device."""

        def __init__(self) -> None:
            super().__init__()
            self.table = nn.Parameter(torch.randn(16, WIDTH))

        def forward(self, length: int) -> torch.Tensor:
            return nn.functional.embedding(torch.arange(length), self.table)

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pos = Positions()
            self.proj = nn.Linear(WIDTH, WIDTH)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out: torch.Tensor = self.proj(x + self.pos(x.shape[1]).to(x.device))
            return out

    model = Model()
    model.proj.to("cuda")
    x = torch.randn(BATCH, SEQ, WIDTH, device="cuda")
    with envsnap.guard(device="cuda") as g:
        model(x)
    torch.cuda.synchronize()

    report = g.report
    assert report.expected_device == "cuda"
    assert report.verdict == "off-device"
    assert [m.module for m in report.modules if m.off_device_ops] == ["pos"]
    (pos,) = (m for m in report.modules if m.module == "pos")
    assert {c.op for c in pos.off_device} == {"aten::arange", "aten::embedding"}
    assert all(c.device == "cpu" for c in pos.off_device)
    copies = [c for c in report.copies if c.direction == "host→device"]
    assert copies
    assert (copies[0].src, copies[0].dst) == ("cpu", "cuda")
    assert copies[0].bytes == SEQ * WIDTH * 4  # one float32 [5, 8] table
    on_cuda = next(m for m in report.modules if m.module == "proj")
    assert set(on_cuda.devices) <= {"cuda", "cpu→cuda"}
