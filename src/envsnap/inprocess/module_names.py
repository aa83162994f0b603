"""Module attribution shared by ``envsnap.guard`` and ``envsnap.record``/``verify``: one naming rule.

A module is named by its path in ``named_modules()`` of the outermost module it was first reached
from ("encoder.layers.3.attn"); the outermost module itself by its class name ("Transformer", a
second distinct root of the same class "Transformer#2"). A module run inside a forward but not
registered under it (kept in a plain list, say) is named after the running parent
("encoder.<Linear>"). The guard's op counts and the recorder's activations use the same rule, so a
module named in a placement finding is the module named in a numerics finding.

Torch is only needed for the objects being named; this module imports nothing heavy.
"""

from __future__ import annotations

import weakref
from typing import Any

ModKey = tuple[str, str]
"""(module label, model label)."""


class ModuleNamer:
    """Names modules from the outermost modules seen, remembering every name it gave (weakly)."""

    def __init__(self) -> None:
        # id(module) -> (a weak reference to check the id was not reused, its key): two plain dict
        # steps per module call, where a WeakKeyDictionary builds a weakref on every lookup (the
        # guard names a module on every call, so this is on its per-forward path).
        self._names: dict[int, tuple[weakref.ref[Any], ModKey]] = {}
        self._root_labels: dict[str, int] = {}

    def name_root(self, root: Any) -> ModKey:
        """Name ``root`` and every module under it; the key of ``root`` itself."""
        label = type(root).__name__
        seen = self._root_labels.get(label, 0)
        self._root_labels[label] = seen + 1
        model = label if not seen else f"{label}#{seen + 1}"
        for path, sub in root.named_modules():
            self._names[id(sub)] = (weakref.ref(sub), (path or model, model))
        return self._names[id(root)][1]

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
