"""Module hooks that feed every module output to a sink, in completion order (record and verify).

Global ``register_module_forward_pre_hook``/``register_module_forward_hook`` (the guard's
mechanism, and its naming rule: module_names.ModuleNamer) so that modules run from anywhere in the
block are seen, including ones not registered under the model. Per call the hooks note:
- the call's key ``path#n`` (n counts the calls of that module, in start order);
- which recorded values it took as inputs (``inputs_from``): every output handed to the sink is
  remembered by identity (weakly), so a module's inputs can be traced to the calls that produced
  them. That is what lets verify tell where an error is born from where it only shows up;
- the top-level calls of the model (its inputs and outputs), which the bundle stores for replay,
  and the call counts each one started from (a replay of some of them restores those counts, so
  its keys are the recorded ones);
- a tensor input that no recorded value produced was computed in the parent's own code (functional
  attention, a residual sum, a mask): it is recorded too, as the output of a pseudo-call
  ``<parent>.<code>#n`` (type "code") whose inputs are everything the parent had seen so far, so
  "its inputs matched" is only ever said of compared values, and a difference born in functional
  code is pinned on the module whose code it is. Inputs of modules called outside any module stay
  untraced (``untraced`` counts them).

Wrappers (module_names.wrapped: torch.compile, DDP, DataParallel, ``.module`` wrappers) are skipped:
their calls are the wrapped model's. A forward that raises is unwound (torch calls an always-call
hook as ``hook(module, args, result)`` on that path, without kwargs): the frame is popped and the
call counts rolled back, so a batch skipped inside the block leaves no trace.

The sink's work (stats, comparisons) runs with every TorchDispatchMode switched off, so an active
envsnap.guard doesn't count envsnap's own reductions as the model's ops.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch
from torch.nn.modules import module as nn_module
from torch.utils._python_dispatch import _disable_current_modes

from envsnap.inprocess.block_clock import BlockClock
from envsnap.inprocess.module_names import ModKey, ModuleNamer, no_compile, unwrap
from envsnap.inprocess.tensor_stats import leaves

STATE = ".<state>"
"""Suffix of the pseudo-module standing for a module's state after the block (Capture.state)."""


@dataclass
class Before:
    """The model's tensors when the block was entered: what ``Capture.state`` compares with."""

    versions: dict[str, int]
    """Version counter of every parameter and buffer (an optimizer step bumps them)."""
    buffers: dict[str, torch.Tensor]
    """Copies of the buffers: kernels such as BatchNorm's update running stats in place without
    bumping the version counter."""


def state_before(model: torch.nn.Module) -> Before:
    """``Before`` for ``model``; tied tensors under every name they have (looked up by path)."""
    named = [
        *model.named_parameters(remove_duplicate=False),
        *model.named_buffers(remove_duplicate=False),
    ]
    with torch.no_grad():  # a meta buffer has no values to copy: its version counter alone tells
        buffers = {
            name: t.detach().clone()
            for name, t in model.named_buffers(remove_duplicate=False)
            if t.device.type != "meta"
        }
    return Before({name: int(t._version) for name, t in named}, buffers)


def _written(tensor: torch.Tensor, name: str, before: Before) -> bool:
    if tensor._version != before.versions.get(name):
        return True
    old = before.buffers.get(name)
    if old is None or tensor.device.type == "meta":
        return False
    return not (old.shape == tensor.shape and old.device == tensor.device and torch.equal(old, tensor))


class Sink(Protocol):
    """Where captured values go."""

    def value(self, key: str, tensor: torch.Tensor) -> None:
        """One tensor: a module output leaf, a tap leaf, or a top-level input leaf."""

    def call_done(self, call: CallInfo) -> None:
        """A module call finished (after its outputs were handed to ``value``)."""

    def top_start(self, index: int) -> None:
        """A top-level call of the model starts (before its inputs are handed to ``value``)."""

    def top_call(
        self, index: int, key: str, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any
    ) -> None:
        """A top-level call of the model (call key ``key``) finished."""


@dataclass
class CallInfo:
    key: str
    module: str
    call: int
    type: str
    device: str | None
    inputs_from: tuple[str, ...]
    outputs: list[str] = field(default_factory=list)
    untraced: int = 0
    """Tensor inputs that no recorded value produced."""
    parent: str | None = None
    """Key of the module call this one ran inside (None: outermost)."""
    seen: list[str] = field(default_factory=list)
    """Values its children and its own code produced so far (what its code may have used)."""
    ops: list[str] = field(default_factory=list)
    """Signatures of the ATen ops its own code ran (op_log.py), when an op log is active."""
    ops_dropped: int = 0
    params_read: list[str] = field(default_factory=list)
    """Parameters of *other* modules its own code's ops took (verify side, op_log.py)."""


def module_device(module: torch.nn.Module) -> str | None:
    """Device type of a module's own first parameter or buffer (None: it holds none)."""
    for param in module.parameters(recurse=False):
        return str(param.device.type)
    for buffer in module.buffers(recurse=False):
        return str(buffer.device.type)
    return None


class Capture:
    """Installs the hooks while active; hands values to ``sink``.

    Args:
        sink: receives values, finished calls and top-level calls.
        model: the model whose outermost calls are the "top-level calls" (None: any outermost module).
    """

    def __init__(
        self,
        sink: Sink,
        model: torch.nn.Module | None,
        rename: dict[str, str] | None = None,
        label: str | None = None,
    ) -> None:
        self.sink = sink
        self.model = unwrap(model) if model is not None else None
        self.namer = ModuleNamer()
        if model is not None:
            self.namer.name_root(model, rename, label)
        self._in_top = False
        self.starts: dict[int, dict[str, int]] = {}
        """Per top-level call: the call counts it started from."""
        self._local = threading.local()
        self._counts: dict[str, int] = {}
        self._producers: dict[int, tuple[weakref.ref[torch.Tensor], str]] = {}
        self._handles: list[Any] = []
        self._late_hooks: dict[int, Any] = {}
        self._late_hook = no_compile(self._late_post)
        """Per module whose own forward hooks run this call: the hook of ours appended after them."""
        self._tops = 0
        self._taps: dict[str, int] = {}
        self.enabled = True
        self.clock: BlockClock | None = None
        """When set (record), the hooks time themselves and the top-level calls (block_clock.py)."""

    def install(self) -> None:
        # Run eagerly under torch.compile: traced, the hooks' stats (a .item() per value) break
        # the graph, and the per-key branches recompile the hook past dynamo's limit (seconds of
        # compiling and a page of warnings for each compiled model, see no_compile).
        self._handles = [
            nn_module.register_module_forward_pre_hook(no_compile(self._pre)),
            nn_module.register_module_forward_hook(
                no_compile(self._global_post), with_kwargs=True, always_call=True
            ),
        ]

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _stack(self) -> list[tuple[ModKey, CallInfo | None, Any]]:
        stack: list[tuple[ModKey, CallInfo | None, Any]] | None = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def current(self) -> CallInfo | None:
        """The module call running on this thread (op_log.py attributes ops to it)."""
        stack = getattr(self._local, "stack", None)
        return stack[-1][1] if stack and self.enabled else None

    def _producer(self, tensor: torch.Tensor) -> str | None:
        found = self._producers.get(id(tensor))
        if found is not None and found[0]() is tensor:
            return found[1]
        return None

    def remember(self, key: str, tensor: torch.Tensor) -> None:
        """Note that ``tensor`` is the recorded value ``key`` (for tracing later modules' inputs)."""
        self._producers[id(tensor)] = (weakref.ref(tensor), key)

    def set_counts(self, top: int, counts: dict[str, int]) -> None:
        """Resume numbering as at the start of recorded top-level call ``top`` (for partial replays)."""
        self._counts = dict(counts)
        self._tops = top

    def _pre(self, module: torch.nn.Module, args: Any) -> None:
        clock = self.clock
        if clock is None:
            self._pre_work(module, args)
            return
        started = clock.enter()
        was_in_top = self._in_top
        try:
            self._pre_work(module, args)
        finally:
            clock.leave(started)
        if self._in_top and not was_in_top:
            clock.top_started()

    def _pre_work(self, module: torch.nn.Module, args: Any) -> None:
        if not self.enabled:
            return
        stack = self._stack()
        if self.namer.is_wrapper(module, outermost=not stack):
            return
        parent = stack[-1][0] if stack else None
        name = self.namer.label(module, parent)
        # The model's outermost call is the top-level one, even when a module that is not the
        # model (a container a rename match looked past) calls it.
        top = (not stack and self.model is None) or (module is self.model and not self._in_top)
        if top:
            self._in_top = True
        if top:
            self.starts[self._tops] = dict(self._counts)
            self._top_inputs(args)
        call = self._counts.get(name[0], 0)
        self._counts[name[0]] = call + 1
        inputs: list[str] = []
        untraced = 0
        outer = stack[-1][1] if stack else None
        for _, tensor in leaves(args):
            producer = self._producer(tensor)
            if producer is None and outer is not None:
                producer = self._code_value(outer, tensor)
            if producer is None:
                untraced += 1
            elif producer not in inputs:
                inputs.append(producer)
        info = CallInfo(
            f"{name[0]}#{call}",
            name[0],
            call,
            type(module).__name__,
            module_device(module),
            tuple(inputs),
            untraced=untraced,
            parent=stack[-1][1].key if stack and stack[-1][1] is not None else None,
        )
        stack.append((name, info, args if top else None))
        if module._forward_hooks and id(module) not in self._late_hooks:
            # The module has forward hooks of its own (the user's: scaling, clamping, replacing its
            # output). Global hooks run before them, so the global post-hook would record the
            # output as it was before they changed it, and the parent would get a value nobody
            # recorded: a change made by a hook was pinned on the parent. A hook of ours appended
            # after theirs sees the output the caller gets; the global post-hook leaves this call
            # to it (torch builds the call's hook list after forward, so this one is on it).
            self._late_hooks[id(module)] = module.register_forward_hook(
                self._late_hook, with_kwargs=True, always_call=True
            )

    def _code_value(self, outer: CallInfo, tensor: torch.Tensor) -> str:
        """Record ``tensor``, computed by ``outer``'s own code, as a pseudo-call's output; its key."""
        name = f"{outer.module}.<code>"
        call = self._counts.get(name, 0)
        self._counts[name] = call + 1
        aligned = getattr(self.sink, "code_key", None)  # verify: pair with the recorded values
        key = aligned(name, call, tensor) if aligned is not None else f"{name}#{call}"
        info = CallInfo(
            key,
            name,
            call,
            "code",
            outer.device,
            tuple(dict.fromkeys([*outer.inputs_from, *outer.seen])),
            parent=outer.key,
        )
        info.outputs.append(key)
        with _disable_current_modes():
            begin = getattr(self.sink, "call_outputs", None)
            if begin is not None:
                begin(info)
            self.sink.value(key, tensor)
            self.remember(key, tensor)
            self.sink.call_done(info)
        outer.seen.append(key)
        return key

    def state(self, before: Before, also: Collection[str] = ()) -> None:
        """After the block: the model's parameters and buffers the block wrote in place (their
        version counter moved or, for buffers, the values changed since ``before``: an optimizer
        step, BatchNorm's running stats), as
        the outputs of a pseudo-call ``<module>.<state>#0`` per module, keyed by tensor name. A
        training step's result is compared too, not only the outputs on the way to it (a
        BatchNorm momentum or an optimizer setting changes nothing else). ``also``: value keys to
        hand over whether written or not (verify: what the recording holds)."""
        if self.model is None:
            return
        begin = getattr(self.sink, "call_outputs", None)
        with _disable_current_modes(), torch.no_grad():
            for path, module in self.model.named_modules():
                name = self.namer.label(module, None)[0]
                key = f"{name}{STATE}#0"
                own = (*module.named_parameters(recurse=False), *module.named_buffers(recurse=False))
                written = [
                    (attr, tensor)
                    for attr, tensor in own
                    if _written(tensor, f"{path}.{attr}" if path else attr, before) or f"{key}/{attr}" in also
                ]
                if not written:
                    continue
                info = CallInfo(key, name + STATE, 0, "state", module_device(module), ())
                info.outputs.extend(f"{key}/{attr}" for attr, _ in written)
                if begin is not None:
                    begin(info)
                for attr, tensor in written:
                    self.sink.value(f"{key}/{attr}", tensor.detach())
                self.sink.call_done(info)

    def _top_inputs(self, args: Any) -> None:
        # The global pre-hook sees positional arguments only; keyword ones arrive with the
        # post-hook (with_kwargs=True) and are handed over there, before the outputs.
        with _disable_current_modes():  # the sink's own copies (a call's state) are not the model's ops
            self.sink.top_start(self._tops)
            for path, tensor in leaves(args, f"<input>#{self._tops}/args"):
                self.sink.value(path, tensor)
                self.remember(path, tensor)

    def _global_post(self, module: torch.nn.Module, args: Any, *rest: Any) -> None:
        late = self._late_hooks.get(id(module))
        if late is not None and len(rest) == 2:
            return  # the module's own late hook records this call, after the module's hooks
        if late is not None:  # the forward raised: unwound here, the late hook taken off first
            self._late_hooks.pop(id(module)).remove()
        self._post(module, args, *rest)

    def _late_post(self, module: torch.nn.Module, args: Any, *rest: Any) -> None:
        """After the module's own forward hooks: the call's output as its caller gets it."""
        handle = self._late_hooks.pop(id(module), None)
        if handle is not None:
            handle.remove()
        self._post(module, args, *rest)

    def _post(self, module: torch.nn.Module, args: Any, *rest: Any) -> None:
        clock = self.clock
        if clock is None:
            self._post_work(module, args, *rest)
            return
        started = clock.enter()
        hooks_at, was_in_top, index = clock.hooks_s, self._in_top, self._tops
        try:
            self._post_work(module, args, *rest)
        finally:
            clock.leave(started)
        if was_in_top and not self._in_top:  # the top-level call ended (or raised)
            if self._tops > index:
                clock.top_finished(index, started, hooks_at)
            else:
                clock.top_failed(index)

    def _post_work(self, module: torch.nn.Module, args: Any, *rest: Any) -> None:
        stack = self._stack()
        if not stack or self.namer.is_wrapper(module, outermost=False):
            return
        _, info, top_args = stack.pop()
        if top_args is not None:
            self._in_top = False
        if len(rest) != 2:  # the exception path: hook(module, args, result), the forward raised
            if top_args is not None:  # the whole call is undone: counts, and what the sink kept of it
                self._counts = dict(self.starts.get(self._tops, self._counts))
                undo = getattr(self.sink, "top_failed", None)
                if undo is not None:
                    undo(self._tops)
            elif info is not None and self._counts.get(info.module) == info.call + 1:
                self._counts[info.module] = info.call
            return
        kwargs, output = rest
        if info is None or not self.enabled:
            return
        with _disable_current_modes():
            if top_args is not None:
                for path, tensor in leaves(dict(kwargs or {}), f"<input>#{self._tops}/kwargs"):
                    self.sink.value(path, tensor)
            begin = getattr(self.sink, "call_outputs", None)
            if begin is not None:
                begin(info)
            for path, tensor in leaves(output):
                key = f"{info.key}{path}"
                info.outputs.append(key)
                self.sink.value(key, tensor)
                self.remember(key, tensor)
            self.sink.call_done(info)
            if stack and stack[-1][1] is not None:
                stack[-1][1].seen.extend(info.outputs)
            if top_args is not None:
                self.sink.top_call(self._tops, info.key, tuple(top_args), dict(kwargs or {}), output)
                self._tops += 1

    def tap(self, name: str, value: Any) -> list[str]:
        """Hand a named value to the sink as ``tap:name#n``; the keys of its tensors."""
        clock = self.clock
        if clock is None:
            return self._tap_work(name, value)
        started = clock.enter()
        try:
            return self._tap_work(name, value)
        finally:
            clock.leave(started)

    def _tap_work(self, name: str, value: Any) -> list[str]:
        call = self._taps.get(name, 0)
        self._taps[name] = call + 1
        keys = []
        with _disable_current_modes():
            for path, tensor in leaves(value, f"tap:{name}#{call}"):
                self.sink.value(path, tensor)
                self.remember(path, tensor)
                keys.append(path)
        return keys
