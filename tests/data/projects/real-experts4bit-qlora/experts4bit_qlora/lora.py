"""Trainable LoRA adapters over frozen bases.

* :class:`ExpertsLoRA` — per-expert low-rank adapters over a frozen :class:`Experts4bit` base
  (the QLoRA-on-fused-MoE piece).
* :class:`LoRALinear` — the usual per-projection LoRA over a frozen ``nn.Linear`` (attention).
* :func:`detect_attention_projections` — shared STRUCTURE detector for attention q/k/v/o
  (``v_proj`` optional; expected count is ``len(candidates)``).
* :func:`add_attention_lora` — wrap those projections in-place with :class:`LoRALinear`.

In both, ``B`` is zero-initialised so the adapted module is identical to the frozen base at
step 0 and only departs as the adapters train (standard LoRA initialisation).

The frozen base may be any :class:`ExpertsNbit` storage scheme (nf4/fp4 4-bit, int8/fp8 blockwise,
or bf16/fp16 passthrough); the adapters and forward are storage-agnostic. Training routes the base
through its recompute-in-backward projection (``ExpertsNbit._project``) for every scheme.

Inference (``no_grad``) additions, both default-on with env kill-switches for A/B:

* **Decode fast-path** (``E4B_DECODE_FASTPATH=0`` disables): a single-token forward skips the
  one-hot expert-mask machinery and the per-hit ``torch.where`` host syncs, iterating the token's
  ``top_k`` experts directly with 0-d tensor indices (no device->host transfer in the loop).
* **Fused 4-bit GEMV** (``E4B_INFER_GEMV=0`` disables): single-row base projections route through
  ``bnb.matmul_4bit``'s GEMV kernel, which reads the packed 4-bit weight directly instead of
  materializing the full dequantized expert — ~4x less memory traffic per expert at decode. Only
  under ``no_grad`` (so it is safe under offload too: no backward ever re-reads an evicted
  weight), only for **4-bit** bases (``int8``/``fp8``/``bf16``/``fp16`` have no GEMV kernel and use
  the dequantize path), and only when the kernel passes a correctness probe for our ``[packed, 1]``
  layout (:func:`_gemv_4bit_matches_dequant`).
"""

from __future__ import annotations

import functools
import inspect
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
import torch.nn as nn
import torch.nn.functional as F

from .absmax_dq import expert_absmax_rows

if TYPE_CHECKING:
    from . import Experts4bit


@functools.lru_cache(maxsize=None)  # tiny domain: the (quant_type, blocksize, dtype) combos actually used
def _gemv_4bit_matches_dequant(
    quant_type: str = "nf4", blocksize: int = 64, dtype: torch.dtype = torch.bfloat16
) -> bool:
    """Whether ``bnb.matmul_4bit``'s single-row GEMV branch is correct for the ``[packed, 1]``
    layout :class:`Experts4bit` stores, in exactly this quantization/compute configuration.

    The training-side probe (:func:`_matmul_4bit_supported`) uses a multi-row input, which takes
    ``matmul_4bit``'s dequantize-based ``MatMul4Bit.apply`` branch — it says nothing about the
    fused ``gemv_4bit`` kernel that a 1-row, ``requires_grad=False`` input dispatches to. This
    probe exercises exactly that decode shape, on a deliberately **non-square** weight so an
    orientation/transpose bug shows up as a shape mismatch or garbage rather than passing by
    symmetry, and is parameterized (bnb instantiates a separate GEMV kernel per compute dtype, and
    the codebook/blocksize are per-module) so the verdict covers exactly the configuration it
    gates. Probed once per configuration, lazily, on the first decode forward — GPU-only, so
    returns ``False`` without CUDA (the dequantize path is used there, as before).
    """
    try:
        if not torch.cuda.is_available():
            return False
        import bitsandbytes as bnb
        import bitsandbytes.functional as F_bnb

        dev = "cuda"
        out_f, in_f = 2 * blocksize, blocksize  # non-square [out, in], in divisible by blocksize
        w = torch.randn(out_f, in_f, dtype=dtype, device=dev)
        x = torch.randn(1, in_f, dtype=dtype, device=dev)  # the decode GEMV shape
        assert not x.requires_grad  # gemv_4bit dispatch requires a non-grad single-row input
        q, st = F_bnb.quantize_4bit(
            w.contiguous(), blocksize=blocksize, compress_statistics=False, quant_type=quant_type
        )
        qs = F_bnb.QuantState(
            absmax=st.absmax.reshape(-1),
            shape=torch.Size((out_f, in_f)),
            code=F_bnb.get_4bit_type(quant_type, device=dev),
            blocksize=blocksize,
            quant_type=quant_type,
            dtype=dtype,
        )
        ref = F.linear(x, F_bnb.dequantize_4bit(q.reshape(-1, 1), quant_state=qs))
        got = bnb.matmul_4bit(x, q.reshape(-1, 1), quant_state=qs)
        if got.shape != ref.shape:
            return False
        # Accept kernel-vs-dequantize rounding (a few %); reject a wrong-kernel result (error >> 1).
        return bool((got - ref).abs().max() / ref.abs().max().clamp_min(1e-6) < 0.05)
    except Exception:
        return False


def _decode_fastpath_enabled() -> bool:
    """Single-token decode fast-path kill-switch (``E4B_DECODE_FASTPATH=0``); default on."""
    return os.environ.get("E4B_DECODE_FASTPATH", "1") != "0"


def _infer_gemv_enabled() -> bool:
    """Inference 4-bit-GEMV route kill-switch (``E4B_INFER_GEMV=0``); default on."""
    return os.environ.get("E4B_INFER_GEMV", "1") != "0"


# ---------------------------------------------------------------------------------------------------
# P67 (bench/p67/P67-PREREG.md): the perturbed-reference floor arm. DEFAULT OFF.
#
# A training-parity delta has to be read against how far two equally-correct runs of the SAME
# reference land apart, not against zero. This switch makes such a second run: the per-expert loop
# in :meth:`ExpertsLoRA.forward` visits the hit experts in a different, fixed order. Nothing else
# changes. Every expert's projections are computed exactly as before; only the order in which their
# contributions are summed into the fp32 accumulator (forward) -- and the order autograd sums the
# input gradient over experts (backward) -- differs. Both are sums of the same terms, so the change
# is exact in real arithmetic and moves only rounding. It is correct by construction, and it shares
# no code with any accelerated path, which is what lets it judge them.
#
#   unset / "ascending"  the shipped order (ascending expert id) -- the default; the loop is the shipped one
#   "descending"         reverse order
#   "perm:<seed>"        a fixed pseudo-random permutation of the expert ids, one per integer seed
#
# Read on every call (tests toggle it); anything else is refused rather than read as the default,
# because a typo that silently ran the default order would make a floor arm a plain repeat.
_REFERENCE_ORDER_ENV = "E4B_REFERENCE_EXPERT_ORDER"
_REFERENCE_ORDER_STATS = {"order": None, "calls": 0}


def _reference_expert_order():
    """The registered order in force: ``None`` (the default), ``"descending"`` or ``"perm:<seed>"``."""
    raw = os.environ.get(_REFERENCE_ORDER_ENV, "").strip()
    if raw in ("", "ascending"):
        return None
    if raw == "descending":
        return raw
    if raw.startswith("perm:") and raw[5:].isdigit():
        return f"perm:{int(raw[5:])}"
    raise ValueError(
        f"{_REFERENCE_ORDER_ENV}={raw!r} is not a registered order; use 'ascending' (the default), "
        f"'descending' or 'perm:<non-negative integer seed>' (bench/p67/P67-PREREG.md)"
    )


@functools.lru_cache(maxsize=64)
def _perm_rank(num_experts: int, seed: int) -> torch.Tensor:
    """``rank[e]`` = the position of expert ``e`` in seed ``seed``'s permutation (CPU, cached)."""
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(num_experts, generator=g)
    rank = torch.empty_like(perm)
    rank[perm] = torch.arange(num_experts)
    return rank


def _order_expert_hit(expert_hit: torch.Tensor, num_experts: int, order: str) -> torch.Tensor:
    """``expert_hit`` (ascending ids) re-ordered by ``order``. The SET of experts is unchanged."""
    if order == "descending":
        return expert_hit.flip(0)
    rank = _perm_rank(num_experts, int(order[5:])).to(expert_hit.device)
    return expert_hit[torch.argsort(rank[expert_hit])]


def reference_order_stats() -> dict:
    """What the P67 switch did in this process: the order last applied and how many
    :meth:`ExpertsLoRA.forward` calls it re-ordered (recompute passes under gradient
    checkpointing count too). ``calls == 0`` under a non-default order means the switch never
    reached the loop -- the arm would be a plain repeat, and its receipt must say so."""
    return dict(_REFERENCE_ORDER_STATS)


def reset_reference_order_stats() -> None:
    _REFERENCE_ORDER_STATS.update(order=None, calls=0)


def _epilogue(base, proj):
    """The base's own activation, not an assumed SwiGLU.

    This adapter cannot call ``base.forward`` -- it re-implements the expert math so the
    low-rank delta lands BEFORE the nonlinearity -- which means it also owns the choice of
    nonlinearity, and that choice was hardcoded to ``act_fn(gate) * up``. For any
    architecture whose experts clamp or gate differently that is silently wrong: the model
    trains, the loss falls, and it is optimising a function the frozen base does not
    compute. DeepSeek-V4 is exactly that case (clamped SwiGLU), which is why its experts
    were built bare rather than wrapped.

    So the base supplies the epilogue via ``_apply_gate`` when it has one. Resolved with
    ``getattr`` rather than by adding the method to the vendored primitive, because
    ``Experts4bit`` resolves to UPSTREAM bitsandbytes whenever that is installed -- a
    method added to the vendored mirror would simply not be there half the time.
    """
    hook = getattr(base, "_apply_gate", None)
    if hook is not None:
        out = hook(proj)
        # a hook may compute in fp32 (V4 does, following its reference) but the adapter's
        # next step is a projection in compute_dtype, so normalise here rather than
        # letting an fp32 activation meet a bf16 weight
        return out if out.dtype == proj.dtype else out.to(proj.dtype)
    if base.has_gate:
        gate, up = proj.chunk(2, dim=-1)
        return base.act_fn(gate) * up
    return base.act_fn(proj)


# --------------------------------------------------------------------------- #
# The STOCK EPILOGUE CONTRACT (#397)
#
# `ExpertsLoRA` never calls `base.forward`: it re-implements the expert math so
# the low-rank delta lands BEFORE the nonlinearity, which makes it the owner of
# the epilogue. What it can represent is exactly one of two things:
#
#   * the stock forward, `down(act_fn(gate) * up)` (or `down(act_fn(up))` when
#     `has_gate` is False) over a gate-block-then-up-block `gate_up_proj`, with
#     no per-expert bias and no clamp; or
#   * a module that hands the whole epilogue over through an `_apply_gate` hook
#     (`_epilogue` above; DeepSeek-V4's clamped SwiGLU is the shipped case).
#
# Anything else -- per-expert bias tensors, a clamp or GLU scalar nothing
# consumes, an interleaved gate/up layout, a forward that overrides the epilogue
# without exposing it -- is a module the adapter would SUBSTITUTE a plain SwiGLU
# for: right shapes, plausible numbers, falling loss, wrong function. gpt-oss was
# the shipped example (`arch/gptoss.py`: biases + clamped GLU + de-interleave at
# load, no hook), and the arena loader wrapped it anyway (#397).
#
# One extension, opt-in per caller (`allow_bias=True`, passed only by
# `ExpertsLoRA` itself): a module with an `_apply_gate` hook whose only bias
# tensors are the buffers `gate_up_bias [E, gate_up rows]` and `down_bias
# [E, hidden]`. The adapter's unfused reference loop adds those after each base
# projection, exactly where the base's own forward does. gpt-oss now has that
# shape. Every fused, batched, offload and residency path applies no bias, so
# each keeps the default and refuses it.
#
# The check below reads STRUCTURE only (buffers, parameters, attributes, the
# class's own `forward` identity and the names its code object references),
# never a class or family name, so it decides gpt-oss BY CONSTRUCTION and any
# future family that carries the same structure the same way.
# --------------------------------------------------------------------------- #

class EpilogueContractError(TypeError):
    """The expert module's forward is not one :class:`ExpertsLoRA` can represent.

    A ``TypeError`` on purpose: the module handed in has the wrong SHAPE for the
    adapter. It is deliberately not a ``NotImplementedError``/``RuntimeError`` --
    the test guards that skip on an absent quantizer swallow those, and this
    refusal must never read as a green skip.
    """


#: The faithful route for the biased, clamped, interleaved expert stack.
STOCK_EPILOGUE_ROUTE = (
    "grouped-nf4-gemm's `mxfp4_qlora.ExpertsMxfp4LoRA` (interleaved clamped GLU + "
    "per-expert biases), the `experimental` row of the `mxfp4-moe-training-and-residency` "
    "capability (docs/solutions/mxfp4-moe-training-and-residency.md)")

#: Attribute names that are epilogue SCALARS. A module may carry one only when an
#: `_apply_gate` hook consumes it; on a stock forward nothing does, and the
#: serving engines (`hot_residency`) DO read `limit`, so the two paths would
#: disagree about what the module computes.
_EPILOGUE_SCALARS = ("alpha", "limit", "swiglu_alpha", "swiglu_limit")

#: Attribute names a module may use to declare that its gate_up rows are
#: interleaved (gate/up alternating) rather than gate-block-then-up-block. No
#: shipped class sets one -- `from_gptoss` de-interleaves at load -- so this
#: exists so a class that DOES declare it is refused rather than `chunk(2)`-ed.
_INTERLEAVE_MARKERS = ("interleaved", "gate_up_interleaved", "_e4b_interleaved")

#: Names in a forward's code object that mean "this forward owns an epilogue the
#: adapter does not": the clamp, the gpt-oss sigmoid GLU, any bias.
_EPILOGUE_CODE_NAMES = ("clamp", "clamp_", "sigmoid")

#: The per-expert bias buffers the adapter's reference loop applies (`allow_bias=True`),
#: one row per expert, added right after the matching base projection.
_BIAS_BUFFERS = ("gate_up_bias", "down_bias")

#: Where a stack with exactly those biases IS wrapped faithfully, and what it costs.
REFERENCE_BIAS_ROUTE = (
    "ExpertsLoRA's unfused per-expert reference loop, which adds `gate_up_bias`/`down_bias` "
    "itself (the loader wraps gpt-oss in it only under E4B_GPTOSS_EXPERT_LORA=1; it runs no "
    "fused kernel, and its cost against the fused route is unmeasured until a registered "
    "read prices it)")


def _stock_forwards() -> frozenset:
    """The forwards `_epilogue` reproduces exactly: the resolved primitive's (upstream
    bitsandbytes when it satisfies the contract, else vendored) AND the vendored one,
    because `arch/*` subclasses always derive from the vendored classes."""
    from . import Experts4bit, ExpertsNbit
    from ._vendor import experts as _vendored

    return frozenset({ExpertsNbit.forward, Experts4bit.forward,
                      _vendored.ExpertsNbit.forward, _vendored.Experts4bit.forward})


def _code_names(fn) -> frozenset:
    code = getattr(fn, "__code__", None)
    return frozenset(code.co_names) if code is not None else frozenset()


def _act_fn_required_positionals(act_fn):
    """How many positional arguments ``act_fn`` REQUIRES, or ``None`` when the
    signature is not introspectable (a C builtin). The stock epilogue applies it to
    one tensor; a callable that needs two is a GLU in disguise."""
    try:
        sig = inspect.signature(act_fn)
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in sig.parameters.values()
               if p.default is p.empty and p.kind in positional)


def describe_epilogue_structure(module) -> dict:
    """Enumerate what :func:`assert_stock_epilogue` inspects, as data.

    Reads no tensor DATA (a ``meta``-backed arena module is fine): registered
    buffers and parameters by name, plain tensor attributes by name, the epilogue
    scalars and interleave markers by presence, the class's ``forward`` by identity
    and by the names its code object references, ``act_fn`` by arity, the declared
    layout by shape. The dict is what the refusal message and the tests read.
    """
    cls = type(module)
    fwd = getattr(cls, "forward", None)
    hook = getattr(module, "_apply_gate", None)
    tensors = set(module._buffers) | set(module._parameters)
    plain = {n for n, v in vars(module).items()
             if isinstance(v, torch.Tensor) and n not in ("_buffers", "_parameters")}
    act_fn = getattr(module, "act_fn", None)
    has_gate = bool(getattr(module, "has_gate", True))
    inter = getattr(module, "intermediate_dim", None)
    hidden = getattr(module, "hidden_dim", None)
    gate_up_shape = tuple(getattr(module, "_gate_up_shape", ()) or ())
    down_shape = tuple(getattr(module, "_down_shape", ()) or ())
    n_exp = getattr(module, "num_experts", None)
    want = {"gate_up_bias": (n_exp, gate_up_shape[0] if gate_up_shape else None),
            "down_bias": (n_exp, down_shape[0] if down_shape else None)}
    return {
        "class": cls.__name__,
        "forward": (f"{fwd.__module__}.{fwd.__qualname__}" if fwd is not None else None),
        "stock_forward": fwd in _stock_forwards(),
        "apply_gate_hook": callable(hook),
        "bias_tensors": sorted(n for n in tensors | plain if "bias" in n),
        # the shape `allow_bias=True` admits: a hook, and no bias but the two buffers, each [E, rows]
        "bias_buffers_representable": (
            callable(hook)
            and sorted(n for n in tensors | plain if "bias" in n) == sorted(_BIAS_BUFFERS)
            and all(n in module._buffers and module._buffers[n] is not None
                    and tuple(module._buffers[n].shape) == want[n] for n in _BIAS_BUFFERS)),
        "epilogue_scalars": sorted(n for n in _EPILOGUE_SCALARS
                                   if getattr(module, n, None) is not None),
        "forward_references": sorted(n for n in _code_names(fwd)
                                     if n in _EPILOGUE_CODE_NAMES or "bias" in n),
        "interleave_markers": sorted(n for n in _INTERLEAVE_MARKERS if getattr(module, n, False)),
        "act_fn": (type(act_fn).__name__ if not hasattr(act_fn, "__name__")
                   else act_fn.__name__) if act_fn is not None else None,
        "act_fn_required_positionals": (_act_fn_required_positionals(act_fn)
                                        if act_fn is not None else None),
        "has_gate": has_gate,
        "gate_up_shape": gate_up_shape,
        "down_shape": down_shape,
        "expected_gate_up_rows": ((2 * inter if has_gate else inter) if inter is not None else None),
        "expected_down_shape": ((hidden, inter) if None not in (hidden, inter) else None),
    }


def assert_stock_epilogue(module, *, allow_bias: bool = False) -> None:
    """Refuse, by STRUCTURE, an expert module whose forward :class:`ExpertsLoRA` cannot
    re-implement; return ``None`` when it can.

    Passes: the vendored/upstream ``ExpertsNbit``/``Experts4bit`` (any ``act_fn``
    of one tensor -- SiLU, Gemma-4's gelu_tanh -- gated or not) and any subclass
    whose only departure from the stock forward is exposed through an
    ``_apply_gate`` hook (``DeepseekV4Experts4bit``). With ``allow_bias=True`` it
    also passes a hooked module whose only bias tensors are the buffers
    ``gate_up_bias [E, gate_up rows]`` and ``down_bias [E, hidden]``
    (``GptOssExperts4bit``): :class:`ExpertsLoRA`'s reference loop adds those
    itself, and it is the only caller that passes ``True``. Raises
    :class:`EpilogueContractError` naming every offending attribute and the
    faithful route for: per-expert bias tensors (``gate_up_bias``/``down_bias``
    unless allowed, ``*_proj_bias``, any other ``*bias*`` buffer, parameter or
    tensor attribute); a non-stock ``forward`` with no hook; an epilogue scalar
    (``alpha``, ``limit``, ``swiglu_*``) no hook consumes; a forward body that
    clamps, applies a sigmoid GLU or adds a bias itself (its code object names
    them) instead of leaving the epilogue to the hook, the two admitted bias
    buffers excepted; an interleaved-layout marker; an ``act_fn`` that needs more
    than one positional argument; a declared ``gate_up``/``down`` shape that is
    not the gate-block-then-up-block ``[2I, H]`` / ``[H, I]`` the adapter
    ``chunk(2)``-splits.

    Every path that wraps, trains over or attaches to an ``ExpertsLoRA`` calls this
    (``ExpertsLoRA.__init__``, the loader's ``arena_train=True`` branch,
    ``enable_nvme_train_residency``, ``enable_fast``/``enable_fast_train``/
    ``enable_batched_train``, ``enable_hybrid_train``, ``enable_expert_offload`` on
    a wrapper), so the loader cannot be bypassed through another entry point. All
    of them but the constructor keep ``allow_bias=False``: none applies a bias.
    """
    d = describe_epilogue_structure(module)
    representable = d["bias_buffers_representable"]
    problems = []
    if d["bias_tensors"] and not (allow_bias and representable):
        problems.append(
            f"per-expert bias tensors {d['bias_tensors']} "
            + ("that this path does not apply" if representable
               else "(the adapter applies only `gate_up_bias` [E, gate_up rows] and "
                    "`down_bias` [E, hidden] buffers, beside an `_apply_gate` hook)"))
    if not d["stock_forward"] and not d["apply_gate_hook"]:
        problems.append(
            f"a non-stock forward ({d['forward']}) and no `_apply_gate` hook to reproduce it")
    if d["epilogue_scalars"] and not d["apply_gate_hook"]:
        problems.append(
            f"epilogue scalars {d['epilogue_scalars']} that no `_apply_gate` hook consumes "
            "(the stock epilogue ignores them; the serving engines do not)")
    # The admitted bias buffers are reported (or allowed) above; a forward that adds them
    # is the base's own copy of what the adapter does, not an epilogue outside the hook.
    refs = [n for n in d["forward_references"] if not (representable and n in _BIAS_BUFFERS)]
    if refs and not d["stock_forward"]:
        problems.append(
            f"a forward whose own body references {refs} -- an epilogue "
            "computed outside any `_apply_gate` hook")
    if d["interleave_markers"]:
        problems.append(
            f"an interleaved gate/up layout ({d['interleave_markers']}); the adapter "
            "`chunk(2)`-splits gate-block-then-up-block rows")
    if d["act_fn"] is None:
        problems.append("no `act_fn`")
    elif (d["act_fn_required_positionals"] or 0) > 1:
        problems.append(
            f"an `act_fn` ({d['act_fn']}) that requires {d['act_fn_required_positionals']} "
            "positional arguments; the stock epilogue applies it to the gate alone")
    rows = d["gate_up_shape"][0] if d["gate_up_shape"] else None
    if d["expected_gate_up_rows"] is not None and rows != d["expected_gate_up_rows"]:
        problems.append(
            f"a declared gate_up shape {d['gate_up_shape']} whose row count is not "
            f"{d['expected_gate_up_rows']} ({'2*' if d['has_gate'] else ''}intermediate_dim)")
    if d["expected_down_shape"] is not None and d["down_shape"] != d["expected_down_shape"]:
        problems.append(
            f"a declared down shape {d['down_shape']}, not {d['expected_down_shape']} "
            "([hidden, intermediate])")
    if not problems:
        return None
    if representable and len(problems) == 1 and d["bias_tensors"]:
        # The stack itself is faithful under the adapter's reference loop; what is refused
        # is a path (a fused kernel, an engine, a tier) that would run it without its biases.
        raise EpilogueContractError(
            f"{d['class']} carries " + problems[0] + ". It is wrapped faithfully only by "
            f"{REFERENCE_BIAS_ROUTE}, or by {STOCK_EPILOGUE_ROUTE}. Running it here would drop "
            "both biases -- shapes agree, the loss falls, nothing raises -- so it is refused.")
    raise EpilogueContractError(
        f"{d['class']} cannot be wrapped in ExpertsLoRA: the adapter re-implements the "
        "expert forward inline (the low-rank delta lands BEFORE the nonlinearity), so it "
        "owns the epilogue and can represent only the stock `down(act_fn(gate) * up)` or "
        "a module that exposes its own epilogue as `_apply_gate`. This module carries "
        + "; ".join(problems)
        + ". Wrapping it would train adapters against a function the frozen base does not "
        "compute -- shapes agree, the loss falls, nothing raises. The faithful route for "
        f"this structure is {STOCK_EPILOGUE_ROUTE}; a family whose departure is a custom "
        "ACTIVATION alone exposes it as `_apply_gate` (arch/deepseek_v4.py).")


class ExpertsLoRA(nn.Module):
    """Per-expert LoRA adapters over a frozen :class:`Experts4bit` base.

    For each expert ``e``, the two frozen 4-bit projections are augmented with a trainable
    low-rank term ``scaling * (x @ A[e].T) @ B[e].T``:

      * ``gate_up``: ``A[e]`` is ``[r, hidden]``, ``B[e]`` is ``[gate_up_out, r]``
      * ``down``:    ``A[e]`` is ``[r, intermediate]``, ``B[e]`` is ``[hidden, r]``

    Refuses (``EpilogueContractError``) a base whose forward it cannot re-implement:
    :func:`assert_stock_epilogue` is applied to ``base`` at construction, so a clamped,
    interleaved or arbitrarily biased expert stack is never wrapped and never trained
    against a substituted SwiGLU. A custom activation exposed as ``_apply_gate``
    (DeepSeek-V4) is accepted, and so is a hooked base whose only biases are the
    ``gate_up_bias`` / ``down_bias`` buffers (gpt-oss): this class adds ``bias[e]``
    right after each base projection, in both forwards, as the base's own forward
    does. Those biases are applied on this unfused loop only; every fused, batched
    and offload enabler refuses such a wrapper.
    """

    def __init__(
        self,
        base: "Experts4bit",
        r: int = 8,
        alpha: int = 16,
        dtype: torch.dtype = torch.float32,
    ):
        super().__init__()
        # Before anything else: the wrapper is only faithful for the stock epilogue
        # (or one handed over through `_apply_gate`, plus the two bias buffers this
        # class applies itself). Refused here, at the seam every constructor of this
        # class goes through, rather than in each loader branch.
        assert_stock_epilogue(base, allow_bias=True)
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)

        if r < 1:
            raise ValueError(
                f"ExpertsLoRA needs rank r >= 1, got r={r}. r=0 reached `alpha / r` and "
                "died with a bare ZeroDivisionError, which reads as a bug in the caller "
                "rather than as an unsupported argument. If the intent is 'no adapter' — "
                "base-model inference or benchmarking — keep an ordinary rank and leave "
                "the adapter untrained: `B` is zero-initialised, so the delta is "
                "identically zero and `_delegate_to_base()` hands the whole forward to "
                "the frozen base, and to any accelerator attached to it."
            )
        self.r = r
        self.scaling = alpha / r
        # None = undecided; see _delegate_to_base(). Invalidated on train()/load.
        self._delegate_ok = None

        num_experts = base.num_experts
        gate_up_out, hidden = base._gate_up_shape  # [2*intermediate (or intermediate), hidden]
        _, intermediate = base._down_shape  # [hidden, intermediate]

        self.gate_up_lora_A = nn.Parameter(torch.empty(num_experts, r, hidden, dtype=dtype))
        self.gate_up_lora_B = nn.Parameter(torch.zeros(num_experts, gate_up_out, r, dtype=dtype))
        self.down_lora_A = nn.Parameter(torch.empty(num_experts, r, intermediate, dtype=dtype))
        self.down_lora_B = nn.Parameter(torch.zeros(num_experts, hidden, r, dtype=dtype))

        # A ~ small random, B = 0  =>  the initial LoRA delta is exactly zero.
        nn.init.normal_(self.gate_up_lora_A, std=1.0 / r)
        nn.init.normal_(self.down_lora_A, std=1.0 / r)

    def _delegate_to_base(self) -> bool:
        """Whether this forward can hand the whole expert computation to ``self.base``.

        Why this exists: the accelerators (``[fast]``'s grouped NF4 kernel,
        ``enable_pipelined_residency``'s routed-gather engine) attach to the
        ``ExpertsNbit`` base by rebinding *its* ``forward``. This class never calls
        ``self.base(...)`` — it re-implements the expert math inline so it can inject the
        low-rank delta **before** the SwiGLU nonlinearity (see :meth:`forward`). So the
        engines' patched forwards sit on a method nothing invokes, and every accelerator is
        silently dead on the streaming-loader path.

        The delta cannot simply be added after the fact — ``act(Wx + BAx) != act(Wx) + d``
        for any cheap ``d`` — so composing in general needs a kernel that takes A/B. But
        there is an exactly-decidable special case: **when the adapter contributes nothing,
        this module's output is bit-identical to the base's.** ``B`` is zero-initialised
        (see ``__init__``), so an untrained adapter — the base-model inference and
        benchmarking case — has ``_lora() == 0`` identically, not approximately.

        Only delegate under no-grad eval (training must keep the fused delta path) and only
        when an engine is actually attached, so the check costs nothing in the default case.
        """
        if torch.is_grad_enabled() or self.training:
            return False
        base = self.base
        # An engine is attached iff something rebound the base's forward.
        # `_e4b_hot_ref` is the hybrid three-tier engine (enable_hybrid_tier
        # delegates through enable_hot_residency): delegating a zero-adapter
        # eval to it serves the fused hybrid path instead of dying on the
        # streaming loader's unmaterialized base storage.
        if (getattr(base, "_e4b_fast_ref", None) is None
                and getattr(base, "_e4b_pipe_ref", None) is None
                and getattr(base, "_e4b_hot_ref", None) is None):
            return False
        return self._adapter_is_zero()

    def _adapter_is_zero(self) -> bool:
        """Whether the adapter contributes identically nothing.

        Deliberately separate from :meth:`_delegate_to_base`, which additionally
        requires no-grad eval and an attached engine. Those are properties of the
        *call site*, not of the adapter — and `enable_fast` needs to ask the data
        question at patch time, which happens with grad enabled. Conflating the two
        made `enable_fast` warn that every patch was unreachable on an untrained
        adapter whose patches then ran fine.

        One device sync, cached; invalidated on train()/load_state_dict. A caller
        that mutates the adapter any OTHER way — ``param.data.copy_`` is the live
        example (serve's adapter swap) — must reset ``_delegate_ok = None`` itself,
        or this returns the previous adapter's verdict: under an attached engine a
        stale True keeps delegating and serves the BASE weights as the new adapter.
        """
        cached = self._delegate_ok
        if cached is None:
            cached = bool(
                self.r == 0
                or (not self.gate_up_lora_B.any().item() and not self.down_lora_B.any().item())
            )
            self._delegate_ok = cached
        return cached

    def _load_from_state_dict(self, *args, **kwargs):
        # A trained adapter arriving after a delegating forward would otherwise keep the
        # stale "adapter is zero" verdict and silently drop the LoRA. Invalidate on load.
        self._delegate_ok = None
        return super()._load_from_state_dict(*args, **kwargs)

    def train(self, mode: bool = True):
        self._delegate_ok = None
        return super().train(mode)

    def _lora(self, x: torch.Tensor, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        # x: [n, in]; A: [r, in]; B: [out, r]  ->  [n, out]. Adapters may deliberately sit in a
        # different (typically higher, e.g. fp32) precision than the compute dtype; matmul requires
        # matching dtypes, so run the low-rank path in the adapter dtype and cast the delta back.
        # No-ops (no copies) when the dtypes already match.
        return _scaled(F.linear(F.linear(x.to(A.dtype), A), B), self.scaling).to(x.dtype)

    def _use_infer_gemv(self, hidden_states: torch.Tensor) -> bool:
        """Whether *single-row* base projections in this forward may route through
        ``bnb.matmul_4bit`` (which dispatches them to the fused 4-bit GEMV kernel) instead of the
        base's dequantize path.

        Inference-only (``no_grad``): with no backward, nothing ever re-reads the packed weight
        after the forward, so this is safe **under offload too** (the eviction hazard
        :mod:`experts4bit_qlora.engines.offload` guards against is a *backward* construct). The win is
        memory traffic: the GEMV reads the packed 4-bit weight directly instead of materializing
        the full dequantized expert for a 1-row matmul. Gated on the decode-shape correctness probe
        (:func:`_gemv_4bit_matches_dequant`) for this module's exact configuration; multi-row
        inference projections keep the dequantize path either way (equal cost, no kernel exposure).

        Bail-outs:

        * ``base.bits != 4`` — the fused GEMV kernel is 4-bit-only; ``int8``/``fp8`` blockwise and
          ``bf16``/``fp16`` passthrough have no ``matmul_4bit`` analogue, so they always decode via
          the base's dequantize path.
        * ``hidden_states.requires_grad`` — bnb dispatches to ``gemv_4bit`` only for a
          ``requires_grad=False`` input; a grad-carrying tensor (legal under ``no_grad``) would
          silently fall into ``MatMul4Bit.apply``'s multi-row branch, which is *wrong* for our
          ``[packed, 1]`` layout on bnb<0.50. Gate it to the always-correct dequantize path.
        * ``self.training`` — reentrant gradient checkpointing (``use_reentrant=True``) runs the
          *initial training forward* under ``torch.no_grad()``; requiring eval mode keeps that
          forward on the same kernels as its grad-enabled recompute.
        * ``base._e4b_mxfp4_arena`` — the base's bytes are MXFP4, not NF4. This one would not
          have been caught by the probe below: ``_gemv_4bit_matches_dequant`` quantizes a
          synthetic weight and compares bnb against bnb, so it never reads this module's
          buffers and would happily return True while ``gemv_4bit`` decoded e8m0 scales as
          fp32 absmax. Real bytes, right shapes, wrong numbers — so it is refused by
          construction rather than left to a probe that cannot see it."""
        if torch.is_grad_enabled() or self.training or not hidden_states.is_cuda or hidden_states.requires_grad:
            return False
        base = self.base
        if getattr(base, "bits", 4) != 4:
            return False  # gemv_4bit is 4-bit only; N-bit schemes decode via the dequantize path
        if getattr(base, "_e4b_mxfp4_arena", False):
            return False  # MXFP4 storage: only the base's own dequantize path can read it
        return _infer_gemv_enabled() and _gemv_4bit_matches_dequant(
            base.quant_type, base.blocksize, hidden_states.dtype
        )

    def _gemv_project(self, packed, absmax, shape, expert_idx, x, compute_dtype):
        """One expert's 4-bit projection via bnb's fused GEMV — the inference analogue of
        :meth:`Experts4bit._project`, reading the packed weight directly rather than dequantizing.

        Mirrors the base's ``[packed, 1]`` ``QuantState`` construction (see
        ``Experts4bit._dequantize_expert``) so the result matches the dequantize path within
        kernel rounding. Only reached under :meth:`_use_infer_gemv` (no_grad, eval, CUDA, 4-bit,
        single-row, probe-validated), so it never participates in autograd."""
        import bitsandbytes as bnb
        from bitsandbytes.functional import QuantState

        base = self.base
        quant_state = QuantState(
            absmax=absmax[expert_idx],
            shape=torch.Size(shape),
            code=base.code,
            blocksize=base.blocksize,
            quant_type=base.quant_type,
            dtype=compute_dtype,
        )
        return bnb.matmul_4bit(x, packed[expert_idx].reshape(-1, 1), quant_state=quant_state)

    def _base_project(self, packed, absmax, shape, expert_idx, x, compute_dtype, use_gemv):
        """Route one expert projection: fused GEMV when ``use_gemv`` (inference 4-bit fast path),
        else the base's dequantize+recompute path (correct for training and for non-gemv decode)."""
        if use_gemv:
            return self._gemv_project(packed, absmax, shape, expert_idx, x, compute_dtype)
        return self.base._project(packed, absmax, shape, expert_idx, x, compute_dtype)

    def forward(
        self,
        hidden_states: torch.Tensor,
        top_k_index: torch.Tensor,
        top_k_weights: torch.Tensor,
    ) -> torch.Tensor:
        base = self.base
        input_dtype = hidden_states.dtype
        compute_dtype = base.compute_dtype if base.compute_dtype is not None else hidden_states.dtype
        hidden_states = hidden_states.to(compute_dtype)

        # Hand off to the base when the adapter provably contributes nothing, so an
        # attached accelerator ([fast] grouped kernel / pipelined routed gather) is
        # actually reached instead of sitting on a forward nobody calls.
        if self._delegate_to_base():
            return base(hidden_states, top_k_index, top_k_weights).to(input_dtype)

        use_infer_gemv = self._use_infer_gemv(hidden_states)
        # Decode fast-path: a single token routes to exactly its top_k experts, so the expert-mask
        # machinery below (one-hot over num_experts + a host-syncing torch.where per hit expert)
        # is pure overhead — iterate the token's experts directly instead. Requires eval mode so a
        # reentrant-checkpoint initial forward (no_grad, but training) keeps the mask path — and
        # with it the exact summation order — of its grad-enabled recompute.
        if (
            hidden_states.shape[0] == 1
            and not torch.is_grad_enabled()
            and not self.training
            and _decode_fastpath_enabled()
        ):
            return self._forward_decode(
                hidden_states, top_k_index, top_k_weights, compute_dtype, use_infer_gemv, input_dtype
            )

        final_hidden_states = torch.zeros_like(hidden_states, dtype=torch.float32)

        with torch.no_grad():
            expert_mask = F.one_hot(top_k_index, num_classes=base.num_experts).permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero(as_tuple=False).view(-1)
            # P67 floor arm only (default None: this branch is never taken and the loop below is
            # the shipped ascending-id loop, unchanged). See _reference_expert_order.
            order = _reference_expert_order()
            if order is not None:
                expert_hit = _order_expert_hit(expert_hit, base.num_experts, order)
                _REFERENCE_ORDER_STATS["order"] = order
                _REFERENCE_ORDER_STATS["calls"] += 1

        # The stored absmax buffers themselves (unchanged), or -- when compress_expert_absmax_ stored them
        # double-quantized (E4B_ABSMAX_DQ=1) -- views whose [expert_idx] dequantizes that expert's row.
        gate_up_absmax = expert_absmax_rows(base, "gate_up")
        down_absmax = expert_absmax_rows(base, "down")
        # Per-expert biases (gpt-oss; None on every other family), added right after each base
        # projection as the base's own forward adds them: inside the routing weight, before the delta.
        gate_up_bias, down_bias = getattr(base, "gate_up_bias", None), getattr(base, "down_bias", None)

        for expert_idx in expert_hit:
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
            x = hidden_states[token_idx]

            # Inference 4-bit GEMV for any expert that received exactly one token (only 1-row inputs
            # dispatch to gemv_4bit); otherwise the base's dequantize+recompute path.
            use_gemv = use_infer_gemv and x.shape[0] == 1

            # Frozen base projection (dequantize/recompute, or fused GEMV) + trainable low-rank delta.
            proj = self._base_project(
                base.gate_up_proj,
                gate_up_absmax,
                base._gate_up_shape,
                expert_idx,
                x,
                compute_dtype,
                use_gemv,
            )
            if gate_up_bias is not None:
                proj = proj + gate_up_bias[expert_idx]
            proj = proj + self._lora(x, self.gate_up_lora_A[expert_idx], self.gate_up_lora_B[expert_idx])

            gated = _epilogue(base, proj)

            current_hidden = self._base_project(
                base.down_proj,
                down_absmax,
                base._down_shape,
                expert_idx,
                gated,
                compute_dtype,
                use_gemv,
            )
            if down_bias is not None:
                current_hidden = current_hidden + down_bias[expert_idx]
            current_hidden = current_hidden + self._lora(
                gated,
                self.down_lora_A[expert_idx],
                self.down_lora_B[expert_idx],
            )

            current_hidden = current_hidden * top_k_weights[token_idx, top_k_pos, None]
            final_hidden_states.index_add_(0, token_idx, current_hidden.to(final_hidden_states.dtype))

        # Same contract as the base primitive: output in the caller's dtype, not compute_dtype.
        return final_hidden_states.to(input_dtype)

    def _forward_decode(
        self,
        hidden_states: torch.Tensor,
        top_k_index: torch.Tensor,
        top_k_weights: torch.Tensor,
        compute_dtype: torch.dtype,
        use_infer_gemv: bool,
        input_dtype: torch.dtype,
    ) -> torch.Tensor:
        """Single-token (``no_grad``) forward: loop the token's ``top_k`` experts directly.

        Semantically identical to the expert-mask loop in :meth:`forward` (same projections, same
        fp32 accumulation; only the summation *order* differs — routing order here vs. ascending
        expert id there, an ulp-level float difference). What it avoids per layer per token: the
        ``[n, k, E]`` one-hot mask, the ``num_experts``-sized hit scan, and ``2k`` host syncs —
        every index below stays a 0-d device tensor, so the loop enqueues kernels without ever
        blocking on a device->host transfer. With ``use_infer_gemv`` the two base projections are
        1-row by construction and take bnb's fused 4-bit GEMV (packed weight read directly,
        no dequantized-expert materialization).
        """
        base = self.base
        final_hidden_states = torch.zeros_like(hidden_states, dtype=torch.float32)
        gate_up_absmax = expert_absmax_rows(base, "gate_up")   # the buffers, or row views when double-quantized
        down_absmax = expert_absmax_rows(base, "down")
        gate_up_bias, down_bias = getattr(base, "gate_up_bias", None), getattr(base, "down_bias", None)  # as in forward

        for j in range(top_k_index.shape[1]):
            expert_idx = top_k_index[0, j]  # 0-d device tensor: indexes below without a host sync

            proj = self._base_project(
                base.gate_up_proj,
                gate_up_absmax,
                base._gate_up_shape,
                expert_idx,
                hidden_states,
                compute_dtype,
                use_infer_gemv,
            )
            if gate_up_bias is not None:
                proj = proj + gate_up_bias[expert_idx]
            proj = proj + self._lora(hidden_states, self.gate_up_lora_A[expert_idx], self.gate_up_lora_B[expert_idx])

            gated = _epilogue(base, proj)

            current_hidden = self._base_project(
                base.down_proj,
                down_absmax,
                base._down_shape,
                expert_idx,
                gated,
                compute_dtype,
                use_infer_gemv,
            )
            if down_bias is not None:
                current_hidden = current_hidden + down_bias[expert_idx]
            current_hidden = current_hidden + self._lora(gated, self.down_lora_A[expert_idx], self.down_lora_B[expert_idx])

            final_hidden_states += (current_hidden * top_k_weights[0, j]).to(final_hidden_states.dtype)

        # ``hidden_states`` here is already the compute-dtype cast; return the caller's dtype.
        return final_hidden_states.to(input_dtype)


class LoRALinear(nn.Module):
    """Frozen base ``nn.Linear`` + trainable low-rank adapter (for the attention projections)."""

    def __init__(
        self,
        base: nn.Linear,
        r: int = 8,
        alpha: int = 16,
        dtype: torch.dtype = torch.bfloat16,
    ):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        self.scaling = alpha / r
        dev = base.weight.device
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features, dtype=dtype, device=dev))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r, dtype=dtype, device=dev))
        nn.init.normal_(self.lora_A, std=1.0 / r)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Same dtype rule as ExpertsLoRA._lora: adapters may sit in a different precision than the
        # activations; compute the delta in the adapter dtype, cast back (no-op when they match).
        delta = _scaled(F.linear(F.linear(x.to(self.lora_A.dtype), self.lora_A), self.lora_B), self.scaling)
        return self.base(x) + delta.to(x.dtype)


def _scaled(d: torch.Tensor, scaling) -> torch.Tensor:
    """``scaling * d``, skipped when ``scaling`` is exactly 1. ``1.0 * x == x`` for every float, so the skip is bit-exact; at
    alpha == r (the field recipe) the multiply was a full elementwise pass over each delta in the forward, the checkpoint recompute
    and the backward, for nothing. A tensor ``scaling`` is always applied (comparing it would read the device). Same rule as
    grouped-nf4-gemm's ``nf4_qlora._scaled`` (#440)."""
    if isinstance(scaling, (int, float)) and scaling == 1:
        return d
    return scaling * d


def _is_supported_linear(obj, *, exact: bool) -> bool:
    """A projection we will convert or wrap.

    ``exact=True`` (quantize): ``type is nn.Linear`` so an already-converted
    ``Linear4bit`` (an ``nn.Linear`` subclass) is not re-quantised.
    ``exact=False`` (LoRA): ``isinstance(..., nn.Linear)`` so ``Linear4bit``
    after :func:`quantize_attention_projections_4bit` still wraps.
    """
    if obj is None:
        return False
    if exact:
        return type(obj) is nn.Linear
    return isinstance(obj, nn.Linear)


def _attention_projection_names(mod, *, exact_linear: bool) -> list[str] | None:
    """Candidate projection names on one module, or None if it is not an attention block.

    STRUCTURE, never class/family names: ``q_proj`` and an output projection as
    supported linears admit the block; ``k_proj`` must then also be a supported
    linear (missing ``k_proj`` is true cross-layer KV reuse — refused, not
    guessed); ``v_proj`` may be a supported linear or absent/``None``.

    The output projection is ``o_proj``, or ``out_proj`` on a module without one
    (LFM2's attention). ``out_proj`` alone is a common name -- LFM2's short-conv,
    Mamba and Gated-DeltaNet mixers carry it beside an ``in_proj`` -- so it admits
    a block only beside ``q_proj`` AND ``k_proj``, all three bias-free (a biased
    CLIP-style ``q/k/v/out_proj`` tower stays undetected, as it always was).
    """
    q = getattr(mod, "q_proj", None)
    if not _is_supported_linear(q, exact=exact_linear):
        return None
    o_name = "o_proj"
    o = getattr(mod, "o_proj", None)
    if o is None:
        o_name, o = "out_proj", getattr(mod, "out_proj", None)
        k0 = getattr(mod, "k_proj", None)
        if not (_is_supported_linear(o, exact=exact_linear) and _is_supported_linear(k0, exact=exact_linear)):
            return None
        if any(getattr(lin, "bias", None) is not None for lin in (q, k0, o)):
            return None
    if not _is_supported_linear(o, exact=exact_linear):
        return None
    k = getattr(mod, "k_proj", None)
    if not _is_supported_linear(k, exact=exact_linear):
        raise SystemExit(
            "attention projections: module has q_proj and o_proj as supported "
            "linears but k_proj is missing or not a supported linear; "
            "cross-layer KV reuse is refused rather than guessed"
        )
    names = ["q_proj", "k_proj"]
    v = getattr(mod, "v_proj", None)
    if _is_supported_linear(v, exact=exact_linear):
        names.append("v_proj")
    names.append(o_name)
    return names


def trainable_lora_param_ids(model) -> tuple[set[int], set[int]]:
    """``(expert_adapter_ids, attention_adapter_ids)``: ``id()`` of every LoRA tensor owned by an :class:`ExpertsLoRA` and by a
    :class:`LoRALinear`. Structural -- which module owns the tensor, never what its parameter path is called."""
    experts, attn = set(), set()
    for m in model.modules():
        if isinstance(m, ExpertsLoRA):
            experts |= {id(p) for n, p in m.named_parameters(recurse=False) if "lora" in n}
        elif isinstance(m, LoRALinear):
            attn |= {id(m.lora_A), id(m.lora_B)}
    return experts, attn


#: MoE blocks (module paths) whose router :func:`router_param_ids` could not identify uniquely -- more than one
#: ``[num_experts, hidden]`` candidate beside the experts. None of their candidates is returned. Rebuilt on every call.
ROUTER_AMBIGUOUS: list = []


def router_param_ids(model) -> set[int]:
    """``id()`` of each MoE block's router weight: the one rank-2 ``[num_experts, hidden]`` parameter in a sibling subtree of an
    :class:`ExpertsLoRA` (``mlp.gate``, ``block_sparse_moe.router.layer``, ``router.proj``, ``mixer.gate``, ...). A shared
    expert's ``[1, hidden]`` gate, the experts' own tensors and any adapter are excluded by shape and ownership.

    Attention subtrees (any module :func:`_attention_projection_names` admits) and :class:`LoRALinear` wrappers are never
    searched: a ``k_proj`` of ``num_kv_heads * head_dim == num_experts`` rows would otherwise pass the shape test (Gemma-4's
    experts sit directly in the decoder layer, beside its attention). A block that still has more than one candidate is
    AMBIGUOUS: it is listed in :data:`ROUTER_AMBIGUOUS` and contributes nothing -- a guessed router is worse than none, and
    :mod:`experts4bit_qlora.train` refuses ``TRAIN_ROUTER=1`` on it."""
    out = set()
    ROUTER_AMBIGUOUS.clear()
    for pname, parent in model.named_modules():
        kids = list(parent.named_children())
        ex = [c for _n, c in kids if isinstance(c, ExpertsLoRA)]
        if not ex:
            continue
        E, H = ex[0].base.num_experts, ex[0].base._gate_up_shape[1]
        cands = []
        for _n, c in kids:
            if isinstance(c, ExpertsLoRA):
                continue
            skip: set[int] = set()
            for m in c.modules():                        # pre-order: a skipped module's subtree is skipped with it
                if id(m) in skip:
                    continue
                if isinstance(m, LoRALinear) or _attention_projection_names(m, exact_linear=False) is not None:
                    skip |= {id(x) for x in m.modules()}
                    continue
                cands += [p for pn, p in m.named_parameters(recurse=False)
                          if p.dim() == 2 and tuple(p.shape) == (E, H) and "lora" not in pn]
        if len(cands) == 1:
            out.add(id(cands[0]))
        elif len(cands) > 1:
            ROUTER_AMBIGUOUS.append(pname or "<root>")
    return out


@dataclass(frozen=True)
class AttentionProjectionCensus:
    """Snapshot of structurally detected attention projections.

    ``expected_count`` is ``len(candidates)``. A harness compares a conversion
    or wrap count to this, never to ``4 * n_layers``. Do not edit committed
    receipt trees under ``bench/`` to change that assertion — the next lane
    reads this count from the library.
    """

    candidates: tuple[tuple[nn.Module, str], ...]

    @property
    def expected_count(self) -> int:
        return len(self.candidates)


def detect_attention_projections(model, *, exact_linear: bool = False) -> AttentionProjectionCensus:
    """Walk ``model.modules()`` and snapshot attention projections by STRUCTURE.

    Both :func:`quantize_attention_projections_4bit` (``exact_linear=True``) and
    :func:`add_attention_lora` (``exact_linear=False``) use this detector.
    Snapshot before mutating: converting or wrapping changes the types the
    predicate matches.

    Returns:
        :class:`AttentionProjectionCensus` whose ``expected_count`` is
        ``len(candidates)``.
    """
    found: list[tuple[nn.Module, str]] = []
    for mod in model.modules():
        names = _attention_projection_names(mod, exact_linear=exact_linear)
        if names is None:
            continue
        for name in names:
            found.append((mod, name))
    return AttentionProjectionCensus(candidates=tuple(found))


def quantize_attention_projections_4bit(model) -> int:
    """Store the FROZEN attention q/k/v/o projections in bnb NF4 (opt-in,
    ``TRAIN_ATTN_4BIT=1``). Run BEFORE :func:`add_attention_lora`: bnb's
    ``Linear4bit`` is an ``nn.Linear`` subclass, so the structural detector
    still matches and ``LoRALinear`` wraps the 4-bit base unchanged.

    Detection is :func:`detect_attention_projections` with ``exact_linear=True``:
    ``q_proj``/``k_proj``/``o_proj`` must be exactly ``nn.Linear``; ``v_proj``
    may be exactly ``nn.Linear`` or absent/``None``. The returned count equals
    the census ``expected_count`` (``len(candidates)``) unless this raises.
    A projection that carries a bias is refused (gpt-oss) rather than dropping
    the bias. A layer lacking ``k_proj`` is refused.

    Why this is safe where serving-side NF4 attention is not: training's
    forward runs at M = seq x batch (hundreds of rows), the regime where
    dequant-then-mm WINS the crossover curve; serving decode is M = 1,
    where it measured 3.4 ms/step SLOWER (AQ1). Measured on the audit
    recipe (Qwen3-30B-A3B, 321,257,472 trainable, RTX 5090): peak
    24.37 -> 23.03 GB at 1.013x step cost, eval-after within the audit
    arms' own spread (receipts: audit-followon VRAMCENSUS). Embeddings
    and lm_head deliberately stay bf16 — they sit in the loss path even
    frozen, and NF4 there measured +0.40 ppl.
    """
    census = detect_attention_projections(model, exact_linear=True)
    for mod, name in census.candidates:
        lin = getattr(mod, name)
        if lin.bias is not None:
            raise SystemExit(
                f"TRAIN_ATTN_4BIT: {name} carries a bias; this "
                f"path stores weight-only NF4 -- refusing rather "
                f"than silently dropping the bias")
    import bitsandbytes as bnb

    n = 0
    for mod, name in census.candidates:
        lin = getattr(mod, name)
        dev = lin.weight.device
        q = bnb.nn.Linear4bit(
            lin.in_features, lin.out_features, bias=False,
            compute_dtype=torch.bfloat16, quant_type="nf4")
        q.weight = bnb.nn.Params4bit(
            lin.weight.data.to("cpu", torch.bfloat16).contiguous(),
            requires_grad=False, quant_type="nf4")
        setattr(mod, name, q.to(dev))   # quantises on transfer
        n += 1
    return n


#: Child names that are a router, never stored in 4-bit by :func:`quantize_frozen_linears_4bit`: the MoE block's
#: ``gate`` (Qwen3-MoE ``mlp.gate``, Mixtral ``block_sparse_moe.gate``), a ``router``, and the shared expert's 1-wide
#: ``shared_expert_gate``. Routing decides which experts run, so its weights stay in their load dtype.
_FROZEN_4BIT_ROUTER_NAMES = frozenset({"gate", "router", "shared_expert_gate"})


def frozen_linear_4bit_candidates(model) -> list[tuple[nn.Module, str, str]]:
    """The frozen linears :func:`quantize_frozen_linears_4bit` stores in NF4, as ``(parent, child_name, full_name)``.

    A candidate is an exact ``nn.Linear`` (not a subclass: a ``Linear4bit`` is already 4-bit, a ``LoRALinear`` is an
    adapter) whose weight is frozen and bf16/fp16 and which carries no bias. Excluded by rule: the output head
    (``get_output_embeddings``), every router (:data:`_FROZEN_4BIT_ROUTER_NAMES`), and the attention projections that
    :func:`detect_attention_projections` finds -- those belong to :func:`quantize_attention_projections_4bit` and its own
    switch. What remains are the dense frozen projections a bitsandbytes ``load_in_4bit`` load would also quantise: on
    Qwen3.6-35B-A3B the 30 linear-attention layers' projections and the 40 shared experts (about 1.14 B parameters); on
    Qwen3-30B-A3B and Mixtral-8x7B none (their only frozen bf16 linears are routers and ``lm_head``).
    """
    attn = {id(getattr(m, n)) for m, n in detect_attention_projections(model, exact_linear=False).candidates}
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    out: list[tuple[nn.Module, str, str]] = []
    for parent_name, parent in model.named_modules():
        for name, child in parent.named_children():
            if type(child) is not nn.Linear or child is head or id(child) in attn or name in _FROZEN_4BIT_ROUTER_NAMES:
                continue
            w = child.weight
            if w.requires_grad or w.dtype not in (torch.bfloat16, torch.float16) or child.bias is not None:
                continue
            out.append((parent, name, f"{parent_name}.{name}" if parent_name else name))
    return out


def quantize_frozen_linears_4bit(model) -> int:
    """Store every :func:`frozen_linear_4bit_candidates` linear in bnb NF4, the way
    :func:`quantize_attention_projections_4bit` stores the attention: ``Linear4bit`` with bnb's default
    ``compress_statistics=True`` (double-quantised absmax), bf16 compute, the frozen weight quantised on transfer.

    A MEASUREMENT hook, not a training option: it puts e4b's frozen base in a bitsandbytes ``load_in_4bit`` comparator's
    regime so a matched-work pair starts from the same bytes (the TC1 harness's ``--frozen-4bit``). It is not offered as a
    default, and :mod:`experts4bit_qlora.train` does not read it: on Qwen3.6-35B-A3B these modules in NF4 start about
    0.05 nats higher on TC1's held-out rows (a comparator that quantises them: 1.194-1.196, against e4b's bf16 1.143),
    for about 1.6 GB of VRAM. ``docs/ARCHITECTURE_SUPPORT.md`` keeps the bf16 default and why.

    Run after the attention conversion and BEFORE :func:`add_attention_lora` (an adapter's own base is then never a
    candidate). Returns the number converted.
    """
    import bitsandbytes as bnb

    n = 0
    for parent, name, _full in frozen_linear_4bit_candidates(model):
        lin = getattr(parent, name)
        dev = lin.weight.device
        q = bnb.nn.Linear4bit(lin.in_features, lin.out_features, bias=False, compute_dtype=torch.bfloat16, quant_type="nf4")
        q.weight = bnb.nn.Params4bit(lin.weight.data.to("cpu", torch.bfloat16).contiguous(), requires_grad=False, quant_type="nf4")
        setattr(parent, name, q.to(dev))   # quantises on transfer
        n += 1
    return n


def add_attention_lora(model, r: int, alpha: int, dtype: torch.dtype) -> int:
    """Wrap each structurally detected attention projection with a trainable LoRA adapter.

    Detection is :func:`detect_attention_projections` (same predicate as
    :func:`quantize_attention_projections_4bit`, with ``isinstance`` so a
    ``Linear4bit`` base still wraps). ``q_proj``/``k_proj``/``o_proj`` must be
    supported linears; ``v_proj`` may be a supported linear or absent/``None``.
    Architecture-agnostic (OLMoE, Qwen3-MoE, Mixtral, Granite, Gemma-4 k_eq_v).
    Idempotent: once wrapped, a projection is a ``LoRALinear`` (not
    ``nn.Linear``), so it is not re-wrapped. The returned count equals the
    census ``expected_count``.
    """
    census = detect_attention_projections(model, exact_linear=False)
    n = 0
    for mod, name in census.candidates:
        setattr(mod, name, LoRALinear(getattr(mod, name), r, alpha, dtype))
        n += 1
    return n
