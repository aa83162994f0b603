"""Replays must neither see nor leave a different model than the user's block did.

Record and verify replay the recorded calls after the block (noise, golden, timing, memory). Left
alone, a replay in train mode moves BatchNorm's running stats and ``num_batches_tracked``, dropout
draws advance the global RNG, and after a training step the replay runs on the *updated* weights, so
the reference no longer reproduces itself. So:

- ``ModelState`` notes, when the block is entered, each parameter's version counter (torch bumps
  ``Tensor._version`` on every in-place write: an optimizer step); at the first top-level call it
  copies the buffers, and the parameters too when the call can train (train mode, grad enabled,
  parameters requiring grad): the state the recorded outputs came from; at each later call, its
  train/eval modes when they changed and, after a step between calls, its parameters and buffers
  (``later``: a train step then an eval forward replays each call as it ran).
- ``restored(...)`` wraps every replay: the RNG is forked (restored on the way out), the model is set
  to the starting state before each replay (``reset``), and put back to the state the block left
  it in at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch

Tensors = dict[str, torch.Tensor]


def _named(model: torch.nn.Module, params: bool) -> Iterator[tuple[str, torch.Tensor]]:
    yield from (("buffer:" + name, t) for name, t in model.named_buffers())
    if params:
        yield from (("param:" + name, t) for name, t in model.named_parameters())


def snapshot(model: torch.nn.Module, params: bool) -> Tensors:
    """Copies of the buffers (and the parameters), keyed so both kinds can be put back."""
    return {name: t.detach().clone() for name, t in _named(model, params) if t.device.type != "meta"}


def put_back(model: torch.nn.Module, state: Tensors) -> None:
    """Copy ``state`` into the model's own tensors, in place (the optimizer keeps its references)."""
    live = dict(_named(model, any(name.startswith("param:") for name in state)))
    with torch.no_grad():
        for name, saved in state.items():
            tensor = live.get(name)
            if tensor is not None and tensor.shape == saved.shape:
                tensor.copy_(saved)


def _modes(model: torch.nn.Module) -> tuple[bool, ...]:
    return tuple(module.training for module in model.modules())


def _set_modes(model: torch.nn.Module, modes: tuple[bool, ...]) -> None:
    for module, training in zip(model.modules(), modes, strict=False):
        module.training = training


@dataclass(frozen=True)
class CallState:
    """What a top-level call ran on, where a replay must not assume it from the call before."""

    modes: tuple[bool, ...]
    """``training`` of every module, in ``modules()`` order (a replay after the block would
    otherwise run a recorded train-mode call in the eval mode the block ended in)."""
    tensors: Tensors | None = None


def _versions(model: torch.nn.Module) -> dict[str, int]:
    return {name: int(p._version) for name, p in model.named_parameters()}


class ModelState:
    """What a recorded model looked like when its calls ran (see the module docstring)."""

    def __init__(self, model: torch.nn.Module | None) -> None:
        self.model = model
        self.versions = _versions(model) if model is not None else {}
        self.start: Tensors | None = None
        self.start_has_params = False
        self.later: dict[int, CallState] = {}
        """Per top-level call index: the train/eval modes it ran in (the first call, and any whose
        modes differ from the call before), and the parameters and buffers, when a training step
        between calls changed the parameters (a train step then an eval forward in one block)."""
        self._seen: dict[str, int] = {}
        self._modes: tuple[bool, ...] = ()

    def first_call(self) -> None:
        """At the first top-level call: copy what a replay must start from."""
        model = self.model
        if model is None or self.start is not None:
            return
        trains = (
            model.training and torch.is_grad_enabled() and any(p.requires_grad for p in model.parameters())
        )
        self.start = snapshot(model, params=trains)
        self.start_has_params = trains
        self._seen = _versions(model)

    def at_call(self, index: int) -> None:
        """At each top-level call: the first one's state (``first_call``); a later one's too when
        the parameters were written since the last copy, so its replay runs on the weights it saw
        (replaying it on the first call's would make the reference "differ from itself" by the
        step, a fake noise that hides real differences)."""
        model = self.model
        if model is None:
            return
        modes = _modes(model)
        if self.start is None:
            self.first_call()
            self.later[index] = CallState(modes)
            self._modes = modes
            return
        tensors = None
        # Without a copy of the first call's weights stepped() makes the replays unfaithful anyway.
        if self.start_has_params and _versions(model) != self._seen:
            tensors = snapshot(model, params=True)
            self._seen = _versions(model)
        if tensors is not None or modes != self._modes:
            self.later[index] = CallState(modes, tensors)
            self._modes = modes

    def stepped(self) -> list[str]:
        """Parameters written in place since the block was entered (an optimizer step)."""
        if self.model is None:
            return []
        now = _versions(self.model)
        return [name for name, version in self.versions.items() if now.get(name, version) != version]


@contextmanager
def restored(model: torch.nn.Module, start: Tensors | None, params: bool) -> Iterator[Callable[[], None]]:
    """Run replays; yields ``reset`` (back to ``start`` before a replay) and restores the end state,
    buffers and ``params`` (when the start state differs in them), and the RNG, on the way out."""
    end = snapshot(model, params)
    modes = _modes(model)

    def reset() -> None:
        if start:
            put_back(model, start)

    # The current CUDA device's generator too, once CUDA is in use (forking it would initialize it).
    initialized = torch.cuda.is_available() and torch.cuda.is_initialized()  # type: ignore[no-untyped-call]
    devices = [torch.cuda.current_device()] if initialized else []
    try:
        with torch.random.fork_rng(devices=devices):
            reset()
            yield reset
    finally:
        put_back(model, end)
        _set_modes(model, modes)


def before_call(model: torch.nn.Module, later: dict[int, CallState], index: int) -> None:
    """Before replaying top-level call ``index``: put back the modes and state it ran on, if kept."""
    state = later.get(index)
    if state is None:
        return
    _set_modes(model, state.modes)
    if state.tensors:
        put_back(model, state.tensors)
