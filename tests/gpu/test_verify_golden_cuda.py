"""The verify-side float64 golden of a CUDA model (verify/golden.py): made on the CPU, never on the GPU.

A CUDA recording of an ill-conditioned sum, verified on CUDA with another summation order: the
value fails the elementwise test, passes through the golden, and the golden's copies add nothing to
the GPU's peak memory (cpu_copy.py copies tensor by tensor onto the CPU).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu


def test_a_cuda_model_is_judged_against_a_cpu_float64_run_without_gpu_memory(tmp_path: Path) -> None:
    import torch

    import envsnap
    from tests.inprocess.test_verify_golden import Model, _inputs

    reference = Model().cuda()
    with envsnap.record(tmp_path / "b", model=reference, environment="none", measure=False):
        reference(_inputs().cuda())
    target = Model(chunks=128).cuda()
    with envsnap.verify(tmp_path / "b", model=target, environment="none", measure=False) as v:
        target(v.inputs)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        during_block = torch.cuda.memory_allocated()
    check = next(c for m in v.report.modules if m.module == "total" for c in m.outputs)
    assert check.status == "golden-pass", check.reason
    assert torch.cuda.max_memory_allocated() <= during_block + 2**20
