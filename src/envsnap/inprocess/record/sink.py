"""What ``envsnap.record`` keeps of one run: stats of every value, tensors within the budget, inputs.

The budget is spent in completion order: the first module outputs are kept as tensors until the
budget runs out; later ones are stats and a sketch only (still compared on verify, on the sketch).
The model's final outputs are always kept in full, and the top-level inputs always stored, whatever
the budget: they are what the target replays and what a user looks at first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from envsnap.inprocess.bundle.model import Stats, TopCall
from envsnap.inprocess.capture import CallInfo
from envsnap.inprocess.tensor_stats import host_copy, keepable, leaves, nbytes, tensor_stats
from envsnap.inprocess.value_tree import encode


@dataclass
class RecordSink:
    """Collects one run. ``keep_bytes`` is the budget for module outputs and taps."""

    keep_bytes: int
    stats: dict[str, Stats] = field(default_factory=dict)
    kept: dict[str, torch.Tensor] = field(default_factory=dict)
    inputs: dict[str, torch.Tensor] = field(default_factory=dict)
    """Host copies of the top-level inputs (what the bundle stores)."""
    live_inputs: dict[str, torch.Tensor] = field(default_factory=dict)
    """The inputs themselves, on their device (what the record's own replays use)."""
    calls: list[CallInfo] = field(default_factory=list)
    tops: list[TopCall] = field(default_factory=list)
    rng_states: list[Any] = field(default_factory=list)
    spent: int = 0
    notes: list[str] = field(default_factory=list)

    def value(self, key: str, tensor: torch.Tensor) -> None:
        if key.startswith("<input>"):
            self.live_inputs[key] = tensor
            if keepable(tensor):
                self.inputs[key] = host_copy(tensor)
            else:
                self.notes.append(f"input {key} ({tensor.dtype} on {tensor.device.type}) can't be stored")
            return
        self.stats[key] = tensor_stats(tensor)
        size = nbytes(tensor)
        if keepable(tensor) and self.spent + size <= self.keep_bytes:
            self.kept[key] = host_copy(tensor)
            self.spent += size

    def call_done(self, call: CallInfo) -> None:
        self.calls.append(call)

    def top_start(self, index: int) -> None:
        self.rng_states.append(torch.random.get_rng_state())

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        self.tops.append(
            TopCall(
                index=index,
                args=tuple(
                    encode(arg, f"<input>#{index}/args/{i}", torch.Tensor) for i, arg in enumerate(args)
                ),
                kwargs=tuple(
                    (k, encode(v, f"<input>#{index}/kwargs/{k}", torch.Tensor)) for k, v in kwargs.items()
                ),
                output=encode(output, key, torch.Tensor),
            )
        )
        for path, tensor in leaves(output, key):  # final outputs: always in full
            if path not in self.kept and keepable(tensor):
                self.kept[path] = host_copy(tensor)
                self.spent += nbytes(tensor)

    def replay_calls(self) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
        """(args, kwargs) of each top-level call, rebuilt from the live inputs."""
        from envsnap.inprocess.value_tree import decode

        calls = []
        for top in self.tops:
            args = tuple(decode(node, self.live_inputs, "record") for node in top.args)
            kwargs = {k: decode(node, self.live_inputs, "record") for k, node in top.kwargs}
            calls.append((args, kwargs))
        return calls
