"""``envsnap.guard(every=N)`` between samples: only the outermost modules carry a hook of their own.

Global module hooks put every module call on torch's slow path; between sampled forwards the guard
must not have them installed, yet count every outermost forward (a model and a loss module
alike) and account exactly every Nth one, with the same names as full accounting.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.modules import module as nn_module

import envsnap


def _global_hooks() -> int:
    return len(nn_module._global_forward_pre_hooks) + len(nn_module._global_forward_hooks)


class Spy(nn.Module):
    """Records whether global forward hooks were installed while it ran."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.seen: list[int] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.seen.append(_global_hooks())
        out: torch.Tensor = self.linear(x)
        return out


def test_unsampled_forwards_run_without_global_hooks() -> None:
    model = Spy()
    x = torch.randn(2, 4)
    before = _global_hooks()
    with envsnap.guard(device="cpu", every=4) as g:
        for _ in range(9):
            model(x)
    report = g.report
    assert (report.forwards_seen, report.forwards_accounted) == (9, 3)
    # Forwards 1, 5, 9 are sampled (global hooks on); 2 runs while the guard still learns the
    # outermost modules; 3, 4, 6, 7, 8 run with the model's own hook only.
    assert [n > before for n in model.seen] == [True, True, False, False, True, True, False, False, True]
    assert _global_hooks() == before
    assert not model._forward_pre_hooks  # the guard's own hook is gone with the guard


def test_a_second_outermost_module_is_counted_and_named() -> None:
    model, loss = Spy(), nn.MSELoss()
    x, y = torch.randn(2, 4), torch.randn(2, 4)
    with envsnap.guard(device="cpu", every=3) as g:
        for _ in range(6):
            loss(model(x), y)
    report = g.report
    # 12 outermost forwards (model, loss, model, loss, ...): 1, 4, 7, 10 are accounted.
    assert (report.forwards_seen, report.forwards_accounted) == (12, 4)
    modules = {m.module for m in report.modules}
    assert "linear" in modules
    assert "MSELoss" in modules


def test_sampled_counts_match_full_accounting_per_forward() -> None:
    model = Spy()
    x = torch.randn(2, 4)
    with envsnap.guard(device="cpu") as full:
        model(x)
    with envsnap.guard(device="cpu", every=5) as sampled:
        for _ in range(10):
            model(x)
    assert sampled.report.forwards_accounted == 2
    assert sampled.report.ops_total == 2 * full.report.ops_total


def test_a_guard_entered_many_times_keeps_its_names() -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
    guard = envsnap.guard(device="cpu")
    for _ in range(3):
        with guard:
            model(torch.randn(1, 4))
    modules = {m.module for m in guard.report.modules}
    assert {"0", "1"} <= modules
    assert not any("#" in name for name in modules)  # the same model, not Sequential#2, #3
    assert guard.report.forwards_seen == 3
