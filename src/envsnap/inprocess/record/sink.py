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
from envsnap.inprocess.replay_state import ModelState
from envsnap.inprocess.tensor_stats import host_copy, keepable, leaves, nbytes, tensor_stats
from envsnap.inprocess.value_tree import encode, opaque_types

Replay = tuple[int, tuple[Any, ...], dict[str, Any]]
"""(top-level call index, args, kwargs) of a call that can be replayed."""


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
    state: ModelState = field(default_factory=lambda: ModelState(None))
    """The model's state at the first call (what replays start from)."""
    live_calls: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = field(default_factory=dict)
    """The arguments each top-level call took, as given (what the record's own replays feed)."""
    starts: dict[int, dict[str, int]] = field(default_factory=dict)
    """Per top-level call, the module call counts it started from (Capture.starts)."""
    block_s: dict[int, float] = field(default_factory=dict)
    """Per top-level call run with grad disabled: its wall time in the block less the hooks'
    (block_clock.BlockClock.samples), a timing sample the replays may confirm."""
    unfaithful: dict[int, list[str]] = field(default_factory=dict)
    top_keys: dict[int, str] = field(default_factory=dict)
    """Per top-level call, the model call's key (its outputs' key prefix)."""
    top_values: dict[int, list[str]] = field(default_factory=dict)
    """Per top-level call, the keys of the module values it produced."""
    _mark: tuple[int, set[str]] = (0, set())
    """Top-level calls with arguments that can't be stored: call index → their type names."""

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
        # A call that raised left its index to the next one: its RNG state and inputs are dropped.
        del self.rng_states[index:]
        self.rng_states.append(torch.random.get_rng_state())
        prefix = f"<input>#{index}/"
        for key in [k for k in self.live_inputs if k.startswith(prefix)]:
            self.live_inputs.pop(key, None)
            self.inputs.pop(key, None)
        self.state.at_call(index)
        self._mark = (len(self.calls), set(self.stats))

    def top_failed(self, index: int) -> None:
        """Top-level call ``index`` raised: forget the module calls and values it produced."""
        calls, known = self._mark
        del self.calls[calls:]
        for key in [k for k in self.stats if k not in known]:
            del self.stats[key]
            dropped = self.kept.pop(key, None)
            if dropped is not None:
                self.spent -= nbytes(dropped)
        self.notes.append(f"a model call raised inside the block and was left out (call {index})")

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        top = TopCall(
            index=index,
            args=tuple(encode(arg, f"<input>#{index}/args/{i}", torch.Tensor) for i, arg in enumerate(args)),
            kwargs=tuple(
                (k, encode(v, f"<input>#{index}/kwargs/{k}", torch.Tensor, k)) for k, v in kwargs.items()
            ),
            output=encode(output, key, torch.Tensor),
        )
        del self.tops[index:]
        self.tops.append(top)
        self.top_keys[index] = key
        self.top_values[index] = [k for call in self.calls[self._mark[0] :] for k in call.outputs]
        opaque = [t for node in (*top.args, *(n for _, n in top.kwargs)) for t in opaque_types(node)]
        if opaque:
            self.unfaithful[index] = opaque
        else:
            self.live_calls[index] = (args, kwargs)
        for path, tensor in leaves(output, key):  # final outputs: always in full
            if path not in self.kept and keepable(tensor):
                self.kept[path] = host_copy(tensor)
                self.spent += nbytes(tensor)

    def replay_calls(self) -> list[Replay]:
        """The top-level calls that can be replayed faithfully, with the arguments they took.

        A call with an argument that can't be stored (a KV-cache object, any custom class) is left
        out: fed None, or the object as the block left it, it would compute something else, and its
        "noise" would be the difference between two different computations.
        """
        return [(index, *self.live_calls[index]) for index in sorted(self.live_calls)]

    def unfaithful_note(self) -> str | None:
        if not self.unfaithful:
            return None
        names = sorted({t for types in self.unfaithful.values() for t in types})
        return (
            f"{len(self.unfaithful)} of {len(self.tops)} model calls took arguments that can't be stored "
            f"({', '.join(names[:4])}): they are not replayed, so their run-to-run noise is unknown and "
            "their values are held to the tolerance alone"
        )
