"""``verify(..., split=N)``: each recorded top-level call ran on the target as N consecutive calls on
consecutive slices of its batch (dim 0), e.g. a batch of 8 recorded in one call, replayed in two
halves of 4 because the new machine has less memory.

The target's N calls are buffered and put back together before anything is compared: every value
(inputs, module outputs, functional-code values) is concatenated along dim 0 across the N parts,
and handed to the verify sink under the key the recorded call gave it, as if the target had run
the whole batch at once. Keys are mapped by position within a top-level call: the k-th call of
module ``m`` inside the target's part is the k-th call of ``m`` inside the recorded call (the
recorded calls' starts are rebuilt from the manifest's completion order). Bit-identical halves
therefore compare bit-identical; a part with another structure fails by shape, never silently.
Values that don't split along the batch (position ids, a causal mask, a scalar: the first part's
already has the recorded shape) are compared from the first part.
Cost: the target's values of one recorded call are held until its last part ends.
Taps are checked as they come (they are the user's values, not the model's).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

import torch

from envsnap.inprocess.bundle.model import Call
from envsnap.inprocess.capture import CallInfo
from envsnap.inprocess.verify.sink import VerifySink

_KEY = re.compile(r"^(?P<module>.*)#(?P<call>\d+)(?P<rest>(?:/.*)?)$")
_INPUT = re.compile(r"^<input>#(?P<top>\d+)(?P<rest>/.*)$")


def recorded_starts(calls: Sequence[Call]) -> list[dict[str, int]]:
    """Per recorded top-level call: the first call index of each module inside it. A top-level
    call completes last (children first), so each completion of the root module ends a group."""
    if not calls:
        return []
    root = calls[-1].module
    starts: list[dict[str, int]] = [{}]
    for call in calls:
        group = starts[-1]
        group[call.module] = min(group.get(call.module, call.call), call.call)
        if call.module == root:
            starts.append({})
    return starts


class SplitSink:
    """Sits between the capture and the verify sink; see the module docstring."""

    def __init__(self, inner: VerifySink, parts: int, recorded: Sequence[Call]) -> None:
        self.inner = inner
        self.parts = parts
        self.starts = recorded_starts(recorded)
        self.capture: Any = None  # set by the verifier: the target's call counts per top call
        self._top = 0
        self._base: dict[str, int] = {}
        self._values: dict[str, list[torch.Tensor]] = {}
        self._order: list[tuple[str, Any]] = []  # ("input", key) / ("call", CallInfo) of part 0

    def _map(self, key: str) -> str:
        found = _INPUT.match(key)
        if found is not None:
            return f"<input>#{int(found['top']) // self.parts}{found['rest']}"
        found = _KEY.match(key)
        if found is None:
            return key
        module = found["module"]
        group = self._top // self.parts
        ref = self.starts[group] if group < len(self.starts) else {}
        index = ref.get(module, 0) + int(found["call"]) - self._base.get(module, 0)
        return f"{module}#{index}{found['rest']}"

    def _info(self, call: CallInfo) -> CallInfo:
        key = self._map(call.key)
        return dataclasses.replace(
            call,
            key=key,
            call=int(key.rsplit("#", 1)[1]),
            inputs_from=tuple(self._map(k) for k in call.inputs_from),
            outputs=[self._map(k) for k in call.outputs],
            parent=self._map(call.parent) if call.parent is not None else None,
            seen=[],
        )

    # -- the capture's Sink protocol -----------------------------------------------------------

    def top_start(self, index: int) -> None:
        self._top = index
        starts = getattr(self.capture, "starts", {})
        self._base = dict(starts.get(index, {}))
        if index % self.parts == 0:
            self._flush()
            self.inner.top_start(index // self.parts)

    def value(self, key: str, tensor: torch.Tensor) -> None:
        if key.startswith("tap:"):
            self.inner.value(key, tensor)
            return
        mapped = self._map(key)
        if mapped not in self._values:
            self._values[mapped] = []
            if key.startswith("<input>"):
                self._order.append(("input", mapped))
        self._values[mapped].append(tensor.detach())

    def call_outputs(self, call: CallInfo) -> None:
        pass  # replayed, with the whole batch, when the last part ends

    def call_done(self, call: CallInfo) -> None:
        if self._top % self.parts == 0:
            self._order.append(("call", self._info(call)))

    def top_failed(self, index: int) -> None:
        self._values.clear()
        self._order.clear()
        self.inner.top_failed(index // self.parts)

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        if index % self.parts == self.parts - 1:
            self._flush()

    def finish(self) -> None:
        """The block ended: a recorded call whose parts did not all run is compared as it is."""
        self._flush()

    # -- putting the parts back together -------------------------------------------------------

    def _whole(self, key: str) -> torch.Tensor:
        parts = self._values.pop(key)
        leaf = self.inner.recorded.get(key)
        same = leaf is not None and tuple(parts[0].shape) == tuple(leaf.stats.shape)
        if len(parts) == 1 or same or any(p.dim() == 0 for p in parts):
            return parts[0]  # a value each part computes whole (positions, a mask, a scalar)
        try:
            return torch.cat(parts, dim=0)
        except RuntimeError:  # parts that do not line up along dim 0: compared (and failed) as is
            return parts[0]

    def _flush(self) -> None:
        order, self._order = self._order, []
        for kind, item in order:
            if kind == "input":
                if item in self._values:
                    self.inner.value(item, self._whole(item))
                continue
            self.inner.call_outputs(item)
            for key in item.outputs:
                if key in self._values:
                    self.inner.value(key, self._whole(key))
            self.inner.call_done(item)
        self._values.clear()
