"""Placement of a recorded or verified run, from the guard's op accounting (torch-light).

The guard (guard_mode.py) already counts every ATen op by device and module; record and verify run
their block inside one and keep its summary. Modules whose own parameters or buffers sit on the CPU
while another device was expected are listed too: they are the usual cause ("left on cpu").
"""

from __future__ import annotations

from typing import Any

from envsnap.inprocess.bundle.model import Placement
from envsnap.inprocess.guard.report import GuardReport


def cpu_modules(model: Any, expected: str) -> tuple[str, ...]:
    """Paths of the model's modules holding their own tensors on the CPU when ``expected`` isn't cpu."""
    if model is None or expected == "cpu":
        return ()
    found = []
    for path, module in model.named_modules():
        own = [*module.parameters(recurse=False), *module.buffers(recurse=False)]
        if own and all(t.device.type == "cpu" for t in own):
            found.append(path or type(model).__name__)
    return tuple(found)


def summarize(report: GuardReport, model: Any) -> Placement:
    """The guard's report, cut to what a verdict needs."""
    off = tuple(m.module for m in report.modules if m.off_device_ops)
    return Placement(
        expected_device=report.expected_device,
        ops_total=report.ops_total,
        ops_off_device=report.ops_off_device,
        devices=dict(report.devices),
        off_device_modules=off,
        cpu_modules=cpu_modules(model, report.expected_device),
        findings=tuple(f for f in report.findings if not f.startswith("all ")),
    )
