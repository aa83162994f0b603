"""Op-level origin: which ATen op, inside the module where an error is born, differs from the reference.

Module hooks can only say *which module* is the first to diverge. Inside it, a TorchDispatchMode
(the guard's mechanism) notes, for every module call, the signature of each ATen op that call's own
code ran (ops of its children go to the children): the op with its overload and every argument
that is not a tensor, tensors by dtype only, e.g. ``aten.gelu.default(f32, approximate='tanh')``.
Record stores them in the manifest (``Call.ops``); verify captures the same on the target, and for
the first-diverging call names the first op whose signature differs: a changed approximation, a
dropped mask, a cast, an extra or missing op. Signatures, not values: the reference keeps no
per-op tensors (that would cost a full copy of every intermediate), so when every signature
matches, the difference is in the numbers the same ops produced (kernels, summation order) and
the report says so.

Bounded: at most ``MAX_OPS`` signatures per call (the count past it is kept), each at most
``MAX_SIG`` characters, every argument redacted (a string argument could carry anything).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

MAX_OPS = 256
MAX_PARAMS = 8
MAX_SIG = 200
MAX_ARG = 48
TRUNCATED = "…"

Current = Callable[[], Any]
"""Returns the running module call's CallInfo (with an ``ops`` list), or None outside modules."""


def _arg(value: Any, tensor_type: Any) -> str:
    from envsnap.snapshot.redact import redact_text

    if isinstance(value, tensor_type):
        return str(value.dtype).removeprefix("torch.").replace("float", "f").replace("bfloat", "bf")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_arg(item, tensor_type) for item in value) + "]"
    text = redact_text(repr(value))
    return text if len(text) <= MAX_ARG else text[:MAX_ARG] + TRUNCATED


def signature(func: Any, args: Sequence[Any], kwargs: dict[str, Any], tensor_type: Any) -> str:
    """``aten.op.overload(arg, ..., name=value)``: tensors by dtype, everything else by value."""
    parts = [_arg(a, tensor_type) for a in args]
    parts += [f"{k}={_arg(v, tensor_type)}" for k, v in kwargs.items()]
    text = f"{func}({', '.join(parts)})"
    return text if len(text) <= MAX_SIG else text[:MAX_SIG] + TRUNCATED


def make_mode(current: Current, params: Mapping[int, tuple[Any, str]] | None = None) -> Any:
    """A TorchDispatchMode appending each op's signature to the running module call's ``ops``.

    ``params`` (verify side): id of a parameter -> (the parameter, ``module.name``); an op of a
    call's own code that takes one of them *as is* (not through its module's call: DeBERTa reads
    ``rel_embeddings.weight`` in its attention code) notes it in the call's ``params_read``."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    tensor = torch.Tensor
    base: Any = TorchDispatchMode  # Any: torch's mode methods are unannotated (mypy --strict)

    class OpLog(base):  # type: ignore[misc, unused-ignore]
        def __torch_dispatch__(
            self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            kwargs = kwargs or {}
            info = current()
            if info is not None:
                if len(info.ops) < MAX_OPS:
                    info.ops.append(signature(func, args, kwargs, tensor))
                else:
                    info.ops_dropped += 1
                if params:
                    _note_params(info, args, params)
            return func(*args, **kwargs)

    return OpLog()


def _note_params(info: Any, args: Sequence[Any], params: Mapping[int, tuple[Any, str]]) -> None:
    for arg in args:
        found = params.get(id(arg))
        fresh = found is not None and found[0] is arg and found[1] not in info.params_read
        if fresh and found is not None and len(info.params_read) < MAX_PARAMS:
            info.params_read.append(found[1])


def read_directly(names: Sequence[str], modules_called: set[str]) -> str | None:
    """The sentence naming parameters a call's own code read of modules that never ran as a call
    (their weights reach no compared output but this one), or None."""
    foreign = [n for n in names if n.rsplit(".", 1)[0] not in modules_called]
    if not foreign:
        return None
    listed = ", ".join(f"`{n}`" for n in foreign[:4])
    return (
        f"Its own code reads {listed} directly, parameters of modules that never ran as a call (so "
        "compared nowhere else): a changed weight there first shows here; compare them."
    )


def _name(sig: str) -> str:
    return sig.split("(", 1)[0]


def _clip(text: str) -> str:
    return text if len(text) <= MAX_SIG else text[:MAX_SIG] + TRUNCATED


def first_difference(reference: Sequence[str], target: Sequence[str]) -> tuple[int, str] | None:
    """(index, sentence) for the first op whose signature differs; None when all match.
    The reference's signatures come from a bundle: clipped again, they may have been planted."""
    reference = [_clip(sig) for sig in reference[: MAX_OPS + 1]]
    for index, (ref, tgt) in enumerate(zip(reference, target, strict=False)):
        if ref != tgt:
            if _name(ref) == _name(tgt):
                what = f"op `{_name(tgt)}` runs with other arguments: `{tgt}` (reference: `{ref}`)"
            else:
                what = (
                    f"op `{_name(tgt)}` runs where the reference ran `{_name(ref)}`: `{tgt}` "
                    f"(reference: `{ref}`)"
                )
            return index, what
    if len(target) > len(reference):
        return len(reference), f"an extra op `{_name(target[len(reference)])}`: `{target[len(reference)]}`"
    if len(reference) > len(target):
        return len(target), f"op `{_name(reference[len(target)])}` of the reference never runs"
    return None


def origin(module: str, reference: Sequence[str], target: Sequence[str], *, own_code: bool) -> str | None:
    """The sentence naming the op where the difference is born inside ``module`` (None: no op log)."""
    if not reference or not target:
        return None
    where = f"`{module}`'s own code" if own_code else f"`{module}`"
    found = first_difference(reference, target)
    if found is None:
        return (
            f"Op level: the {len(target)} ops {where} ran have the same signatures as on the reference "
            "(same ops, arguments, dtypes): the difference is in the numbers those ops produce "
            "(parameters, kernels, summation order, hardware), not in the code."
        )
    index, what = found
    return f"Op level: in {where}, {what} (op {index + 1} of {len(target)})."
