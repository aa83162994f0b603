"""The verify side of the capture: each value the target produces is checked as it is produced, so
no target tensor outlives its module call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from envsnap.inprocess.bundle.model import Leaf
from envsnap.inprocess.capture import CallInfo
from envsnap.inprocess.tensor_stats import dtype_name
from envsnap.inprocess.tolerance import Tolerance
from envsnap.inprocess.verify.compare import check_input, check_value
from envsnap.inprocess.verify.report import ValueCheck


@dataclass
class VerifySink:
    recorded: Mapping[str, Leaf]
    reference: Mapping[str, torch.Tensor]
    golden: Mapping[str, torch.Tensor]
    inputs: Mapping[str, torch.Tensor]
    overrides: Mapping[str, Tolerance]
    checks: dict[str, ValueCheck] = field(default_factory=dict)
    input_checks: dict[str, ValueCheck] = field(default_factory=dict)
    calls: list[CallInfo] = field(default_factory=list)

    def value(self, key: str, tensor: torch.Tensor) -> None:
        if key.startswith("<input>"):
            self.input_checks[key] = check_input(key, tensor, self.inputs.get(key))
            return
        leaf = self.recorded.get(key)
        if leaf is None:
            self.checks[key] = ValueCheck(
                key=key,
                status="extra",
                reason="not in the recording",
                shape=tuple(int(d) for d in tensor.shape),
                dtype=dtype_name(tensor.dtype),
            )
            return
        self.checks[key] = check_value(
            key, tensor, leaf, self.reference.get(key), self.golden.get(key), self.overrides
        )

    def call_done(self, call: CallInfo) -> None:
        self.calls.append(call)

    def top_start(self, index: int) -> None:
        pass

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        pass
