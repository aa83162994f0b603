"""Which target module is which recorded module: by path, else by structure, else by a rename map.

A bundle names modules by path ("h.0.attn"). Wrappers are already transparent (module_names); what
is left is a refactor that renames attributes (``attn`` → ``attention``) or moves the model under
another (``self.inner = model``). So verify lines the target up with the recording:

1. ``rename={"target.path": "recorded.path"}`` from the user first (prefixes; a path mapped to ""
   says "the recorded model is this submodule");
2. every recorded path present in the target (extra target modules allowed): nothing to do;
3. otherwise the module trees are aligned in ``named_modules()`` order on (class name, shapes of
   the module's own parameters and buffers; containers without tensors by position), difflib's
   longest matching blocks: a renamed model lines up completely, an edited one mostly;
4. fewer than half of the recorded modules line up: "this bundle was recorded from a different
   model", said once, instead of a wall of "never ran".

Torch is only needed for the model being read.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from envsnap.inprocess.bundle.model import ModuleSig
from envsnap.inprocess.module_names import unwrap

MIN_MATCHED = 0.5
"""Below this fraction of recorded modules lined up, the bundle is from another model."""


@dataclass
class Match:
    model: Any
    """The module to name as the recorded model (the target, or the submodule a rename points at)."""
    rename: dict[str, str] = field(default_factory=dict)
    """Target path → recorded path, where they differ."""
    label: str | None = None
    """The recorded model's label, given to the target's root."""
    note: str | None = None
    """How the modules were matched, when not by path."""
    different: str | None = None
    """Set when the bundle was recorded from a different model."""


def signature(model: Any) -> tuple[ModuleSig, ...]:
    """(path, class name, own tensor shapes) of every module under ``model``, in named_modules order."""
    return tuple(
        ModuleSig(
            path=path,
            type=type(module).__name__,
            shapes=tuple(
                tuple(int(d) for d in t.shape)
                for t in (*module.parameters(recurse=False), *module.buffers(recurse=False))
            ),
        )
        for path, module in unwrap(model).named_modules()
    )


def _key(sig: ModuleSig) -> tuple[str, tuple[tuple[int, ...], ...]]:
    """What lines up: class and shapes; a container (no tensors of its own) by position alone, as a
    refactor renames containers (Block → DecoderLayer) more often than layers."""
    return (sig.type if sig.shapes else "<container>", sig.shapes)


def _apply(path: str, rename: Mapping[str, str]) -> str:
    best = max((k for k in rename if path == k or path.startswith(k + ".") or k == ""), key=len, default=None)
    if best is None:
        return path
    rest = path[len(best) :].lstrip(".") if best else path
    new = rename[best]
    return f"{new}.{rest}" if new and rest else (new or rest)


def _user_root(model: Any, rename: Mapping[str, str]) -> tuple[Any, dict[str, str]]:
    """A rename mapping a submodule to "" makes that submodule the model; the rest re-rooted."""
    roots = [k for k, v in rename.items() if v == "" and k]
    if not roots:
        return model, dict(rename)
    root = max(roots, key=len)
    try:
        inner = unwrap(model).get_submodule(root)
    except AttributeError:
        raise ValueError(f"rename: the model has no submodule {root!r}") from None
    rebased = {k[len(root) :].lstrip("."): v for k, v in rename.items() if k.startswith(root) and k != root}
    return inner, rebased


def _keep_unwrapped(structural: dict[str, str], recorded_paths: set[str]) -> None:
    """A target module lined up with a recorded module *under its own path* (target ``up`` with the
    recorded ``up.base``) while its path is recorded too: the recorded model wrapped that module
    (a LoRA adapter around a Linear: ``up`` holding ``base``, ``lora_A``, ``lora_B``) and the target
    has it bare or merged. The target's ``up`` computes what the recorded ``up`` did, not what the
    wrapped ``up.base`` did: aligned on the inner Linear's class and shapes, a merged adapter
    "diverged" at ``up.base`` and a dropped one hid behind it. It stays at its own path; the
    wrapper's own submodules are left without a counterpart (a module that ran with none of its
    recorded submodules: a limitation, judge.unobservable). The root is left alone: a target
    lined up under a recorded path is the recorded model's submodule (``moved_root``)."""
    taken = set(structural.values())
    for path, new in list(structural.items()):
        if path and path in recorded_paths and new.startswith(path + ".") and path not in taken:
            structural[path] = path


def match(
    recorded: Sequence[ModuleSig], recorded_label: str | None, model: Any, rename: Mapping[str, str] | None
) -> Match:
    """Line the target ``model`` up with the recorded module tree (see the module docstring)."""
    model, user = _user_root(model, rename or {})
    found = Match(model=model, label=recorded_label)
    target = signature(model)
    mapped = [(sig, _apply(sig.path, user) if user else sig.path) for sig in target]
    found.rename = {sig.path: new for sig, new in mapped if new != sig.path}
    if not recorded:
        return found  # a bundle without the module tree: paths only
    recorded_paths = {sig.path for sig in recorded}
    target_paths = {new for _, new in mapped}
    # Every recorded path is in the target: the same model, path for path. Modules the target has
    # beyond them (a dynamically quantized Linear's packed-params child) are extra, and a module
    # whose class changed (Linear -> quantized Linear) stays where it was: aligning on structure
    # would pair it with a parameterless neighbour (a ReLU) instead.
    if recorded_paths <= target_paths:
        if user:
            found.note = f"modules matched through rename= ({len(found.rename)} paths renamed)"
        return found
    keys = [_key(sig) for sig, _ in mapped]
    wanted = [_key(sig) for sig in recorded]
    matcher = difflib.SequenceMatcher(None, keys, wanted, autojunk=False)
    structural: dict[str, str] = {}
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            sig, _ = mapped[block.a + offset]
            structural[sig.path] = recorded[block.b + offset].path
    _keep_unwrapped(structural, recorded_paths)
    fraction = len(structural) / len(recorded)
    model_name = type(unwrap(model)).__name__
    if fraction < MIN_MATCHED:
        found.different = (
            f"this bundle was recorded from a different model: {recorded_label or '?'} "
            f"({len(recorded)} modules) vs the target {model_name} ({len(target)} modules); only "
            f"{len(structural)} line up by class and parameter shapes. Check the bundle and the model "
            "given, or pass rename={'target.path': 'recorded.path'}"
        )
        found.rename = {}
        return found
    moved_root = [path for path, new in structural.items() if new == "" and path]
    if moved_root and not user:  # the recorded model sits under the target: name from there
        return match(recorded, recorded_label, model, {moved_root[0]: ""})
    found.rename = {path: new for path, new in structural.items() if path != new}
    renamed = sorted(found.rename.items(), key=lambda item: len(item[0]))
    example = next(((a, b) for a, b in renamed if a and b), None)
    found.note = (
        f"modules matched by structure (class and parameter shapes): {len(structural)} of "
        f"{len(recorded)} recorded modules line up, {len(found.rename)} under other paths"
        + (f" (e.g. `{example[0]}` is the recorded `{example[1]}`)" if example else "")
    )
    return found
