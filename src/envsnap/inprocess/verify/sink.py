"""The verify side of the capture: each value the target produces is checked as it is produced, so
no target tensor outlives its module call.

Tolerances flow with the data: a value that needed a looser tolerance than its dtype's default (an
override, or a cast to a lower precision) passes it on to the module calls that consume it and to
the module call it ran inside, so ``tolerances={"h.1.mlp.gelu": ...}`` (or autocast) covers the
residual sums and the logits its difference reaches, not only the module named.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from envsnap.inprocess.bundle.model import Leaf
from envsnap.inprocess.capture import STATE as STATE_MARK
from envsnap.inprocess.capture import CallInfo
from envsnap.inprocess.fp32_math import REDUCED_MATH, applies
from envsnap.inprocess.tensor_stats import dtype_name
from envsnap.inprocess.tolerance import Tolerance
from envsnap.inprocess.verify import golden as float64_golden
from envsnap.inprocess.verify.compare import (
    Inherited,
    aligned_code_key,
    check_input,
    check_value,
    tolerance_name,
)
from envsnap.inprocess.verify.padding import RealPositions, padding_mask
from envsnap.inprocess.verify.report import ValueCheck


def autocast_dtype(device: str) -> str | None:
    """The dtype autocast produces on ``device`` right now (None: autocast is off there)."""
    try:
        if not torch.is_autocast_enabled(device):
            return None
        return dtype_name(torch.get_autocast_dtype(device))
    except (RuntimeError, TypeError, AttributeError):  # a device type autocast doesn't know
        return None


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
    compare: Callable[[str, Any, Any], Any] | None = None
    loosened: dict[str, Inherited] = field(default_factory=dict)
    """Values that passed at a tolerance looser than their dtype's default, and that tolerance."""
    from_children: dict[str, list[Inherited]] = field(default_factory=dict)
    """Per module call key: looser tolerances its children's outputs passed at."""
    _inherited: Inherited | None = None
    after_top: Inherited | None = None
    """The looser tolerance of the last top-level call's outputs: what taps inherit."""
    _mark: tuple[int, set[str]] = (0, set())
    _padding: RealPositions | None = None
    """The running top-level call's padding (verify/padding.py), when it took a padded mask."""
    padded: int = 0
    fed: dict[str, torch.Tensor] = field(default_factory=dict)
    """The top-level inputs the target was fed, as fed (what its timing replays feed again)."""
    math: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Reduced float32 math either side allowed, per kind of op (fp32_math.between)."""
    call_ops: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The reference's own ops per module call key: which calls that math reaches."""
    pending: dict[str, float64_golden.Kept] = field(default_factory=dict)
    """Failed float32 values the float64 golden may judge after the block (verify/golden.py): the
    target's value in full where the reference was kept in full, else its sketch."""

    code_shift: dict[str, int] = field(default_factory=dict)
    """Per ``<parent>.<code>``: recorded index minus target index, once the two code paths parted."""

    def code_key(self, name: str, call: int, tensor: torch.Tensor) -> str:
        """The recorded key to compare the target's ``call``-th value of ``name`` (a module's own
        code) with (compare.aligned_code_key: paired by shape when the code paths parted)."""
        return aligned_code_key(
            self.recorded, self.code_shift, name, call, tuple(int(d) for d in tensor.shape)
        )

    def call_outputs(self, call: CallInfo) -> None:
        """``call``'s outputs come next: the tolerance they inherit from its inputs and children."""
        found = [self.loosened[k] for k in call.inputs_from if k in self.loosened]
        if call.type == "state":  # a training step's result is computed from the whole block
            found = list(self.loosened.values())
        found += self.from_children.pop(call.key, [])
        self._inherited = max(found, key=lambda item: item[0]) if found else None

    def _loosen(self, key: str, check: ValueCheck) -> None:
        """Remember a value checked at a tolerance looser than its dtype's default."""
        if check.status != "pass" or check.metrics is None:
            return
        source = check.tolerance_from
        if source.startswith(("override", "inherited")) or check.cast or REDUCED_MATH in source:
            if not source.startswith("inherited"):
                source = f"inherited from {tolerance_name(key)} ({source})"
            self.loosened[key] = ((check.rtol, check.atol), source)

    def value(self, key: str, tensor: torch.Tensor) -> None:
        if key.startswith("<input>"):
            self.fed[key] = tensor
            check = check_input(key, tensor, self.inputs.get(key))
            self.input_checks[key] = check
            self._loosen(key, check)
            return
        leaf = self.recorded.get(key)
        if leaf is None:
            self.checks[key] = self._unrecorded(key, tensor)
            return
        inherited = self._inherited if not key.startswith("tap:") else self.after_top
        check = check_value(
            key,
            tensor,
            leaf,
            self.reference.get(key),
            self.golden.get(key),
            self.overrides,
            compare=self.compare or self._padding,
            inherited=inherited,
            autocast=autocast_dtype(tensor.device.type),
            reduced=applies(self.math, self.call_ops.get(key.split("/", 1)[0], ())) if self.math else None,
        )
        self.checks[key] = check
        self._loosen(key, check)
        if float64_golden.wanted(check, leaf) and self.compare is None and self._padding is None:
            self.pending[key] = float64_golden.keep(tensor, key in self.reference)

    def _unrecorded(self, key: str, tensor: torch.Tensor) -> ValueCheck:
        """A value the recording does not hold: extra (a wrapper's own submodules), except a tensor
        the target's block wrote in place (``<state>``) while the reference's block, whose writes
        were recorded, left it as it was: a parameter trained on the target only (a base model
        left trainable beside its adapters, a BatchNorm in train mode), a real difference that no
        module output shows. A recording with no state at all can't say (its block wrote nothing,
        or it predates state capture): there it stays extra, said as such."""
        shape, dtype = tuple(int(d) for d in tensor.shape), dtype_name(tensor.dtype)
        if STATE_MARK not in key or not self.state_recorded:
            reason = (
                "not in the recording"
                if STATE_MARK not in key
                else "written in place by the target's block; the recording holds no state to compare"
            )
            return ValueCheck(key=key, status="extra", reason=reason, shape=shape, dtype=dtype)
        return ValueCheck(
            key=key,
            status="fail",
            reason=(
                "written in place by the target's block, while the reference's block left it as it "
                "was (its in-place writes were recorded, and this tensor is not among them)"
            ),
            shape=shape,
            dtype=dtype,
        )

    @functools.cached_property
    def state_recorded(self) -> bool:
        """Did the reference's block write (and so record) any state?"""
        return any(STATE_MARK in key for key in self.recorded)

    def call_done(self, call: CallInfo) -> None:
        self.calls.append(call)
        self._inherited = None
        passed = [self.loosened[k] for k in call.outputs if k in self.loosened]
        widest = max(passed, key=lambda item: item[0]) if passed else None
        if widest is not None and call.parent is not None:
            self.from_children.setdefault(call.parent, []).append(widest)
        if call.parent is None:  # taps after a model call are computed from its outputs
            self.after_top = widest

    def top_start(self, index: int) -> None:
        self._mark = (len(self.calls), set(self.checks))
        if self._padding is not None:
            self.padded += self._padding.masked
        valid = padding_mask(self.inputs, index) if self.compare is None else None
        self._padding = RealPositions(valid) if valid is not None else None

    def finish_padding(self) -> int:
        """How many values were compared at their real positions only (padding left out)."""
        if self._padding is not None:
            self.padded += self._padding.masked
            self._padding = None
        return self.padded

    def top_failed(self, index: int) -> None:
        """Top-level call ``index`` raised: forget the module calls and checks it produced."""
        calls, known = self._mark
        del self.calls[calls:]
        for key in [k for k in self.checks if k not in known]:
            del self.checks[key]

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        pass
