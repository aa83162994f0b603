"""Module attribution shared by ``envsnap.guard`` and ``envsnap.record``/``verify``: one naming rule.

A module is named by its path in ``named_modules()`` of the outermost module it was first reached
from ("encoder.layers.3.attn"); the outermost module itself by its class name ("Transformer", a
second distinct root of the same class "Transformer#2"). A module run inside a forward but not
registered under it (kept in a plain list, say) is named after the running parent
("encoder.<Linear>"). The guard's op counts and the recorder's activations use the same rule, so a
module named in a placement finding is the module named in a numerics finding.

Wrappers are transparent: ``torch.compile``'s OptimizedModule (``_orig_mod``), DDP, DataParallel,
FSDP and any module whose only child is ``.module`` and that holds no tensors of its own (the DDP
layout, user wrappers) are named after the model they wrap, and paths are the inner model's
(``h.0.attn``, never ``_orig_mod.h.0.attn`` or ``module.h.0.attn``), so a bundle recorded through a
wrapper verifies against the bare model and the other way round.

Torch is only needed for the objects being named; this module imports nothing heavy.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

ModKey = tuple[str, str]
"""(module label, model label)."""


WRAPPER_TYPES = frozenset(
    {"OptimizedModule", "DistributedDataParallel", "DataParallel", "FullyShardedDataParallel"}
)
"""Wrapper classes by name (torch.compile, DDP, DataParallel, FSDP1): the model is ``.module``
(``._orig_mod`` for OptimizedModule). Checked by name so torch.distributed is never imported."""


def wrapped(module: Any) -> Any | None:
    """The model ``module`` wraps, or None when it is not a wrapper."""
    inner = getattr(module, "_orig_mod", None) if type(module).__name__ == "OptimizedModule" else None
    if inner is not None:
        return inner
    children = getattr(module, "_modules", None)
    if not isinstance(children, dict) or set(children) != {"module"} or children["module"] is None:
        return None
    if type(module).__name__ in WRAPPER_TYPES:
        return children["module"]
    own = [*module.parameters(recurse=False), *module.buffers(recurse=False)]
    return None if own else children["module"]


def unwrap(module: Any) -> Any:
    """The innermost model under any chain of wrappers (``module`` itself when it wraps nothing)."""
    for _ in range(8):
        inner = wrapped(module)
        if inner is None:
            break
        module = inner
    return module


def wrapper_chain(module: Any) -> list[Any]:
    """The wrappers around the innermost model, outermost first (empty when none)."""
    chain = []
    for _ in range(8):
        inner = wrapped(module)
        if inner is None:
            break
        chain.append(module)
        module = inner
    return chain


def timed(model: Any) -> Any:
    """What timing replays call: the model as given when every wrapper around it is a known
    pass-through (so a ``torch.compile``d model is timed compiled, a DDP one through DDP), else the
    innermost model (a user wrapper may change the arguments it passes on)."""
    chain = wrapper_chain(model)
    if chain and all(type(w).__name__ in WRAPPER_TYPES for w in chain):
        return model
    return unwrap(model)


class ModuleNamer:
    """Names modules from the outermost modules seen, remembering every name it gave (weakly)."""

    def __init__(self) -> None:
        # id(module) -> (a weak reference to check the id was not reused, its key): two plain dict
        # steps per module call, where a WeakKeyDictionary builds a weakref on every lookup (the
        # guard names a module on every call, so this is on its per-forward path).
        self._names: dict[int, tuple[weakref.ref[Any], ModKey]] = {}
        self._root_labels: dict[str, int] = {}
        self._wrappers: dict[int, weakref.ref[Any]] = {}

    def name_root(
        self, root: Any, rename: Mapping[str, str] | None = None, label: str | None = None
    ) -> ModKey:
        """Name ``root`` and every module under it; the key of ``root`` itself.

        Wrappers around the model take the model's key. ``rename`` maps the model's own paths to
        the names to use instead (a structural match against a recording); ``label`` replaces
        the class name as the model's label.
        """
        chain = wrapper_chain(root)
        inner = unwrap(root)
        label = label or type(inner).__name__
        seen = self._root_labels.get(label, 0)
        self._root_labels[label] = seen + 1
        model = label if not seen else f"{label}#{seen + 1}"
        for path, sub in inner.named_modules():
            known = self._names.get(id(sub))
            if known is not None and known[0]() is sub and sub is not inner:
                continue  # named from the root it was first reached from (a model inside a container)
            name = rename.get(path, path) if rename else path
            self._names[id(sub)] = (weakref.ref(sub), (name or model, model))
        for wrapper in chain:
            self._wrappers[id(wrapper)] = weakref.ref(wrapper)
            self._names[id(wrapper)] = (weakref.ref(wrapper), (model, model))
        return self._names[id(root)][1]

    def is_wrapper(self, module: Any, outermost: bool) -> bool:
        """Whether ``module`` is a wrapper named (or, when ``outermost``, to be named) as a root's."""
        found = self._wrappers.get(id(module))
        if found is not None and found() is module:
            return True
        if outermost and id(module) not in self._names and wrapped(module) is not None:
            self.name_root(module)
            return True
        return False

    def label(self, module: Any, parent: ModKey | None) -> ModKey:
        """The key of ``module``, run inside ``parent`` (None: it is an outermost module)."""
        known = self._names.get(id(module))
        if known is not None and known[0]() is module:
            return known[1]
        if parent is None:
            return self.name_root(module)
        key = (f"{parent[0]}.<{type(module).__name__}>", parent[1])
        self._names[id(module)] = (weakref.ref(module), key)
        return key


def no_compile(hook: Any) -> Any:
    """``hook``, run eagerly when a torch.compile'd model calls it (dynamo skips its frame).

    Global module hooks are called from inside the compiled model's frames, so dynamo would trace
    them: envsnap's bookkeeping is Python (dict lookups on keys, ``.item()`` syncs) that dynamo
    can't keep in a graph; traced, it graph-breaks per value and recompiles the hook per key.
    """
    import torch

    disable = getattr(getattr(torch, "compiler", None), "disable", None)
    return disable(hook) if disable is not None else hook
