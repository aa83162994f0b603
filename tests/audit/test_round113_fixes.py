"""Fixes after measurement round 113 (#22), on rl_games 1.6: a mixed-precision scaler behind its
``enabled=`` switch, and float64 statistics that are a module's buffers; on RSL-RL 5.5: a compile past a
pass-through of an unset mode.

rl_games builds ``torch.amp.GradScaler('cuda', enabled=self.mixed_precision)`` with ``mixed_precision``
False unless the config turns it on, and keeps its observation statistics in float64 buffers
(``RunningMeanStd``) that ``model.to(device)`` moves to the GPU: *moderate* on XPU came from the scaler
(the truth is *lower*), and *moderate* on MPS from the scaler too, where the float64 buffers are the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import audit_files, raised

# rl_games 1.6.5 rl_games/common/a2c_common.py (A2CBase.__init__, trimmed).
AGENT = """\
import torch


class A2CBase:
    def __init__(self, config):
        self.mixed_precision = config.get("mixed_precision", False)
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.mixed_precision)
"""
# rl_games 1.6.5 rl_games/algos_torch/running_mean_std.py (RunningMeanStd.__init__, trimmed).
RUNNING_MEAN_STD = """\
import torch
import torch.nn as nn


class RunningMeanStd(nn.Module):
    def __init__(self, in_size):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(in_size, dtype=torch.float64))
        self.register_buffer("running_var", torch.ones(in_size, dtype=torch.float64))
"""


@pytest.mark.parametrize("target", ["xpu", "mps"])
def test_a_scaler_behind_its_enabled_switch_is_the_callers_choice(tmp_path: Path, target: str) -> None:
    report = audit_files(tmp_path, {"rl/agent.py": AGENT}, target)
    scalers = [f for f in report.findings if f.rule == "cuda-grad-scaler"]
    assert [f.risk for f in scalers] == ["lower"]
    assert "enabled=" in scalers[0].meaning
    assert report.verdict.risk == "lower"


@pytest.mark.parametrize("enabled", ["", ", enabled=True"])
def test_a_scaler_always_on_still_needs_the_targets_own(tmp_path: Path, enabled: str) -> None:
    agent = AGENT.replace(", enabled=self.mixed_precision", enabled)
    report = audit_files(tmp_path, {"rl/agent.py": agent}, "xpu")
    assert "cuda-grad-scaler" in raised(report)


def test_float64_buffers_move_with_the_module_onto_mps(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"rl/running_mean_std.py": RUNNING_MEAN_STD}, "mps")
    float64 = [f for f in report.findings if f.rule == "float64-on-mps"]
    assert [f.location for f in float64] == ["rl/running_mean_std.py:8", "rl/running_mean_std.py:9"]
    assert {f.risk for f in float64} == {"moderate"}
    assert report.verdict.risk == "moderate"


def test_float64_parameters_move_with_the_module_too(tmp_path: Path) -> None:
    text = RUNNING_MEAN_STD.replace(
        'self.register_buffer("running_var", torch.ones(in_size, dtype=torch.float64))',
        "self.var = nn.Parameter(torch.ones(in_size, dtype=torch.float64))",
    ).replace('        self.register_buffer("running_mean", torch.zeros(in_size, dtype=torch.float64))\n', "")
    assert "float64-on-mps" in raised(audit_files(tmp_path, {"rl/stats.py": text}, "mps"))


def test_a_float64_tensor_made_on_the_host_stays_there(tmp_path: Path) -> None:
    text = RUNNING_MEAN_STD.replace('self.register_buffer("running_mean", ', "mean = (").replace(
        '        self.register_buffer("running_var", torch.ones(in_size, dtype=torch.float64))\n', ""
    )
    report = audit_files(tmp_path, {"rl/stats.py": text}, "mps")
    assert "float64-on-mps" not in raised(report)


# rsl-rl-lib 5.5.1 rsl_rl/utils/utils.py (compile_model, trimmed; renamed, since a function named for
# compiling is opt-in by its name alone, and here the pass-through is what is tested).
COMPILE = """\
import torch


def prepare_model(model, mode=None):
    if mode is None:
        return model
    return torch.compile(model, mode=mode)
"""


def test_compile_past_a_pass_through_of_an_unset_mode_is_opt_in(tmp_path: Path) -> None:
    report = audit_files(tmp_path, {"rl/utils.py": COMPILE}, "mps")
    compiled = [f for f in report.findings if f.rule == "torch-compile-mps"]
    assert [f.risk for f in compiled] == ["lower"]
    assert report.verdict.risk == "lower"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("mode=None", "mode='default'"),  # set by default: compiled unless the caller turns it off
        ("return model", "return None"),  # not a pass-through of the input
        ("if mode is None:", "if model is None:"),  # a required argument, not a setting
    ],
)
def test_compile_after_other_early_returns_still_counts(tmp_path: Path, old: str, new: str) -> None:
    report = audit_files(tmp_path, {"rl/utils.py": COMPILE.replace(old, new)}, "mps")
    assert "torch-compile-mps" in raised(report)
