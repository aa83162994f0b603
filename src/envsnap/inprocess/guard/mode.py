"""The torch side of ``envsnap.guard``: a TorchDispatchMode that counts every ATen op by device, and
global nn.Module hooks that say which module ran it. Imported only once a guard is entered.

Why these pieces:
- ``TorchDispatchMode`` sees every ATen op after autograd and decomposition, with real tensors. It
  records the devices of an op's *inputs* as well as its outputs, because on the CPU build
  ``mm(cpu, meta)`` silently returns a CPU tensor: the output alone would hide the mix.
- Module attribution uses ``register_module_forward_pre_hook``/``register_module_forward_hook``
  (global, ``always_call=True`` so a raising forward still pops its frame) with a per-thread stack,
  and names from ``named_modules()`` of each outermost module seen. torch's own
  ``torch.utils.module_tracker.ModuleTracker`` only offers the *set* of active module names (not
  the innermost), prefixes them with the class name, and adds backward hooks on every tensor; it
  also can't switch accounting on for every Nth forward, which the sampling mode needs.
- Sampling (``every=N``): the mode is pushed only for every Nth forward of the outermost module,
  so the forwards in between run at full speed (an unused mode still costs a Python call per op).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch.nn.modules import module as nn_module
from torch.utils._python_dispatch import TorchDispatchMode

from envsnap.inprocess.guard.ledger import Ledger, ModKey, SeenWarning
from envsnap.inprocess.guard.report import OUTSIDE
from envsnap.inprocess.module_names import ModuleNamer, no_compile

_Tensor = torch.Tensor
# Typed as Any: torch's mode methods are unannotated, and mypy --strict would flag each call.
_DispatchMode: Any = TorchDispatchMode
_OUTSIDE_KEY: ModKey = (OUTSIDE, "")
_SEQUENCES = (list, tuple)

# op name → (index of the source argument, index of the destination argument or None = the output)
_COPIES: dict[str, tuple[int, int | None]] = {
    "aten::_to_copy": (0, None),
    "aten::copy_": (1, 0),
    "aten::copy": (1, 0),
    "aten::_copy_from": (0, 1),
    "aten::_copy_from_and_resize": (0, 1),
}

OffDeviceHandler = Callable[[str, str, ModKey], None]
"""Called as ``(op, device key, module)`` for an off-device op in strict mode; it raises."""


def _op_name(func: Any) -> str:
    return str(func._schema.name)  # "aten::addmm", without the overload


def _input_devices(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[set[str], bool]:
    """Device types of the tensor arguments, and whether a CPU 0-dim tensor was left out.

    A CPU 0-dim tensor next to accelerator tensors is a scalar argument (PyTorch allows it), so it
    only counts as a device when nothing else does. This runs for every op: ``Tensor.is_cpu`` is
    read first because ``Tensor.device`` builds a ``torch.device`` object (~1 µs) on every access.
    """
    devices: set[str] = set()
    cpu_scalar = False
    for group in (args, kwargs.values()) if kwargs else (args,):
        for arg in group:
            if isinstance(arg, _Tensor):
                if not arg.is_cpu:
                    devices.add(arg.device.type)
                elif arg.dim():
                    devices.add("cpu")
                else:
                    cpu_scalar = True
            elif type(arg) in _SEQUENCES:
                for item in arg:
                    if isinstance(item, _Tensor):
                        if not item.is_cpu:
                            devices.add(item.device.type)
                        elif item.dim():
                            devices.add("cpu")
                        else:
                            cpu_scalar = True
    return devices, cpu_scalar


def _output_devices(out: Any) -> set[str]:
    if isinstance(out, _Tensor):
        return {"cpu" if out.is_cpu else out.device.type}
    if type(out) in _SEQUENCES:
        return {("cpu" if item.is_cpu else item.device.type) for item in out if isinstance(item, _Tensor)}
    return set()


def _key(devices: set[str]) -> str:
    if len(devices) == 1:
        return next(iter(devices))
    return "+".join(sorted(devices)) if devices else "none"


def _nbytes(tensor: Any) -> int:
    return int(tensor.numel() * tensor.element_size()) if isinstance(tensor, _Tensor) else 0


class ModuleStack:
    """Which nn.Module is running on this thread, named from the outermost modules seen.

    Args:
        ledger: where forwards are counted.
        every: account every Nth outermost forward (1 = all ops, always).
        mode: the dispatch mode to push for an accounted forward when sampling.
    """

    def __init__(self, ledger: Ledger, every: int, mode: Any) -> None:
        self._ledger = ledger
        self._every = every
        self._mode = mode
        self._local = threading.local()
        self._namer = ModuleNamer()  # the naming rule shared with envsnap.record/verify
        self._handles: list[Any] = []
        # Sampling (every > 1): global hooks put every module call of every forward on torch's slow
        # path (a Python call per module, twice). Between sampled forwards only the outermost
        # modules carry a hook of their own, which counts the forward and, for a sampled one,
        # turns the global hooks (and the mode) on until that forward and the next outermost one
        # have ended; that next one is how a second model (a loss module, say) is discovered.
        self._roots: weakref.WeakSet[torch.nn.Module] = weakref.WeakSet()
        self._root_handles: list[Any] = []

    def current(self) -> ModKey:
        """The innermost running module, or the "outside modules" label."""
        stack = getattr(self._local, "stack", None)
        return stack[-1][0] if stack else _OUTSIDE_KEY

    def install(self) -> None:
        """Register the global forward hooks (with sampling, until the model's forwards are known)."""
        self._install_global()

    def remove(self) -> None:
        """Remove the hooks (and leave a sampled forward if one is somehow still open)."""
        self._remove_global()
        for handle in self._root_handles:
            handle.remove()
        self._root_handles = []
        self._roots = weakref.WeakSet()

    def _install_global(self) -> None:
        if not self._handles:
            self._handles = [
                nn_module.register_module_forward_pre_hook(no_compile(self._pre)),
                nn_module.register_module_forward_hook(no_compile(self._post), always_call=True),
            ]

    def _remove_global(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def _label(self, module: torch.nn.Module, parent: ModKey | None) -> ModKey:
        return self._namer.label(module, parent)

    def _pre(self, module: torch.nn.Module, args: Any) -> None:
        stack: list[tuple[ModKey, bool]] | None = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        accounted = False
        if not stack:
            ledger = self._ledger
            ledger.forwards_seen += 1
            if (ledger.forwards_seen - 1) % self._every == 0:
                ledger.forwards_accounted += 1
                accounted = self._every > 1
        stack.append((self._label(module, stack[-1][0] if stack else None), accounted))
        if accounted:
            self._mode.__enter__()

    def _post(self, module: torch.nn.Module, args: Any, output: Any) -> None:
        stack = getattr(self._local, "stack", None)
        if not stack:
            return  # the guard started inside this forward
        _, accounted = stack.pop()
        if accounted:
            self._mode.__exit__(None, None, None)
        if not stack and self._every > 1:
            self._outermost_ended(module, accounted)

    def _outermost_ended(self, module: torch.nn.Module, accounted: bool) -> None:
        """With sampling: give the root its own hook; leave the global hooks after an unsampled forward."""
        if module not in self._roots:
            self._roots.add(module)
            self._root_handles.append(module.register_forward_pre_hook(self._root_pre))
        if not accounted:
            self._remove_global()

    def _root_pre(self, module: torch.nn.Module, args: Any) -> None:
        """A known outermost module starts a forward while the global hooks are off: count it."""
        if self._handles:
            return  # the global hooks are on and have counted it
        stack = getattr(self._local, "stack", None)
        if stack:
            return  # run inside another forward on this thread
        ledger = self._ledger
        ledger.forwards_seen += 1
        if (ledger.forwards_seen - 1) % self._every:
            return
        # A sampled forward: its own global pre-hook call has passed, so its frame is pushed
        # here; the global post-hook (on from now) pops it, leaves the mode, and, after the next
        # outermost forward, turns the global hooks off again.
        ledger.forwards_accounted += 1
        if stack is None:
            stack = self._local.stack = []
        stack.append((self._label(module, None), True))
        self._install_global()
        self._mode.__enter__()


class AccountingMode(_DispatchMode):  # type: ignore[misc, unused-ignore]  # torch may be untyped
    """Counts each ATen op by device key and module; records copies, failures and fallbacks.

    Args:
        ledger: where counts go.
        warnings_log: the guard's list of warnings seen, appended to as they are emitted.
        is_fallback_warning: whether a warning message says ops are running on the CPU.
        on_off_device: strict mode's handler (raises) for off-device ops inside module forwards,
            or None to collect everything.
    """

    def __init__(
        self,
        ledger: Ledger,
        warnings_log: list[Any],
        is_fallback_warning: Callable[[str], bool],
        on_off_device: OffDeviceHandler | None,
    ) -> None:
        super().__init__()
        self.ledger = ledger
        self.stack: ModuleStack | None = None
        self._log = warnings_log
        self._is_fallback = is_fallback_warning
        self._strict = on_off_device
        self._names: dict[Any, str] = {}

    def __torch_dispatch__(
        self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        # The per-op hot path (every ATen op of the guarded code comes through here): lookups
        # are inlined and the common single-device case avoids building keys from sets.
        kwargs = kwargs or {}
        name = self._names.get(func)
        if name is None:
            name = self._names[func] = _op_name(func)
        ledger = self.ledger
        frames = getattr(self.stack._local, "stack", None) if self.stack is not None else None
        module = frames[-1][0] if frames else _OUTSIDE_KEY
        devices, cpu_scalar = _input_devices(args, kwargs)
        copy = _COPIES.get(name)
        # Strict mode polices module forwards only: outside them, building a model or a batch on
        # the CPU before moving it is normal, and raising there would make strict unusable.
        strict = self._strict if module is not _OUTSIDE_KEY else None
        if strict is not None and copy is None and any(d != ledger.expected for d in devices):
            self._record(name, _key(devices), module)
            strict(name, _key(devices), module)
        log_size = len(self._log)
        try:
            out = func(*args, **kwargs)
        except NotImplementedError as err:
            self._failed(name, devices or ({"cpu"} if cpu_scalar else set()), module, err)
            raise
        if len(self._log) > log_size:
            self._warned(name, devices, module, log_size)
        if copy is not None and self._copied(name, copy, args, out, module):
            return out
        devices |= _output_devices(out)
        if not devices and cpu_scalar:
            devices = {"cpu"}
        key = next(iter(devices)) if len(devices) == 1 else _key(devices)
        ops = ledger.ops
        entry = (module, name, key)
        ops[entry] = ops.get(entry, 0) + 1
        if ledger.fallback_marks:
            for device in devices:
                if (name, device) in ledger.fallback_marks:
                    fallback_key = (name, device, module)
                    ledger.fallback[fallback_key] = ledger.fallback.get(fallback_key, 0) + 1
        if strict is not None and ledger.is_off(key):
            strict(name, key, module)
        return out

    def _record(self, name: str, key: str, module: ModKey) -> None:
        ops = self.ledger.ops
        entry = (module, name, key)
        ops[entry] = ops.get(entry, 0) + 1

    def _copied(
        self, name: str, copy: tuple[int, int | None], args: tuple[Any, ...], out: Any, module: ModKey
    ) -> bool:
        """Record a copy between two devices; False when source and destination share a device."""
        src_index, dst_index = copy
        src = args[src_index] if len(args) > src_index else None
        dst = out if dst_index is None else (args[dst_index] if len(args) > dst_index else None)
        if not isinstance(src, _Tensor) or not isinstance(dst, _Tensor):
            return False
        src_kind, dst_kind = src.device.type, dst.device.type
        if src_kind == dst_kind:
            return False
        self._record(name, f"{src_kind}→{dst_kind}", module)
        entry = self.ledger.copies.setdefault((name, src_kind, dst_kind, module), [0, 0])
        entry[0] += 1
        entry[1] += _nbytes(dst)
        return True

    def _failed(self, name: str, devices: set[str], module: ModKey, err: NotImplementedError) -> None:
        message = (str(err).strip().splitlines() or [type(err).__name__])[0][:300]
        entry = (name, _key(devices), module, message)
        self.ledger.failed[entry] = self.ledger.failed.get(entry, 0) + 1

    def _warned(self, name: str, devices: set[str], module: ModKey, start: int) -> None:
        """Note fallback warnings emitted while ``name`` ran, and mark the op as falling back."""
        for record in self._log[start:]:
            text = str(record.message)
            if not self._is_fallback(text):
                continue
            first_line = text.strip().splitlines()[0][:300] if text.strip() else text
            seen = self.ledger.warnings.get((first_line, record.category.__name__))
            if seen is None:
                self.ledger.warnings[(first_line, record.category.__name__)] = SeenWarning(1, name, module[0])
            else:
                seen.count += 1
            # The warning is printed once per process, but the op falls back on every call:
            # from now on each call of this op on this device is counted as a fallback.
            for device in devices - {"cpu"} or devices:
                self.ledger.fallback_marks.add((name, device))
