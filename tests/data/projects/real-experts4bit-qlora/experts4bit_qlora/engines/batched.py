"""Kernel-free batched training path — stock torch + bitsandbytes, no extras.

``enable_fast_train`` (see :mod:`experts4bit_qlora.engines.fast`) needs
``grouped-nf4-gemm``, which has to build and is arch-gated. Without it that call
returns ``0`` and training falls back to ``ExpertsLoRA.forward``'s per-expert
Python loop: at 256 experts over 40 layers that is ~10k sync-gated iterations per
forward, and the GPU idles through most of it.

This module was written as the fallback for that case. A toy-width microbench
(one training step, E=256, 512 tokens, top_k 8, hidden 512, inter 768) ranked it
ahead of the thing it was falling back from. That microbench ran on the RTX A2000,
a correctness-only testbed, so its step times are not quoted here; its peak
memory was 59 MB for the loop, 108 MB for ``enable_fast_train`` and 417 MB for
this module.

**That ranking does not survive real width.** A prior revision of this docstring
predicted a bigger card "should narrow this"; measured, it did not narrow — it
reversed. Qwen3-30B-A3B (48 layers, hidden 2048)
on an A6000, one training step, from the published wheels
(``bench/dgrad-gate/RESULTS-dgrad-gate.md``):

===================================  ==========  =========  ==========
path                                   s/step      vs loop    peak GB
===================================  ==========  =========  ==========
reference per-expert loop               12.781      1.00x      23.13
``enable_fast_train``                    7.420      1.72x      24.31
``enable_fast_train(dgrad=True)``        5.075      2.52x      25.51
this module                             12.219      1.05x      26.71
===================================  ==========  =========  ==========

At toy width the per-expert Python loop is the cost and batching anything wins;
at real width the matmuls dominate, and the whole-stack dequant this path pays on
every forward AND backward stops being amortizable — while also costing the most
peak memory of any lane. What survives at scale is the one thing the kernel lane
cannot offer: **no extras**. Reach for this module when ``grouped-nf4-gemm`` will
not build for your arch; default to ``enable_fast_train(dgrad=True)`` otherwise.

One consolation result: this path's composed gradient error against the reference
is ~4e-3 at 48 layers where the fused lane's is ~5e-2 — the tightest of the
accelerated lanes, if fidelity-to-the-reference ever matters more than speed.

**Why batching a frozen expert stack needs no kernel.** The experts are frozen,
so the dequantized stack is a constant with respect to autograd — there is no
``dW`` to accumulate and nothing to keep. And it can be produced in ONE call:
``_quantize_stack`` quantizes each expert with ``compress_statistics=False``,
and the constructor refuses shapes where the blocksize does not divide an
expert's rows, so blocks never straddle an expert boundary and the flattened
absmax is an exact concatenation. A single ``dequantize_4bit`` over the whole
buffer with ``QuantState(shape=(E*out, in))`` therefore reproduces the
per-expert loop **bit for bit** — pinned by
``test_fused_train_parity.test_whole_stack_dequant_equals_per_expert_loop``,
which is what fails first if double-quant is ever enabled or a straddling shape
is admitted. Measured 32x against the per-expert decode loop at E=256.

**Credit.** The approach is not ours. @jiwoon-ahn proposed it in issue #38 — batch
the frozen expert projections with a single whole-stack dequant, sort token/expert
pairs, run the groups as ``bmm``s — with measurements, a working implementation, and
an offer to upstream it. This module is that idea. What we verified before building
on it: the whole-stack dequant is not merely close to the per-expert loop, it is
bit-identical, for the structural reason above.

Two things this implementation does differently from the design in #38:

* **Recompute-decode backward.** The dequantized stack is regenerated inside
  ``backward`` rather than saved, so it is never held across the
  forward-to-backward window. #38 lets autograd save it and therefore *requires*
  gradient checkpointing to keep 40 layers of it from being resident. Here the
  stack is transient in each direction, so checkpointing is an option rather
  than a precondition. Same guarantee ``nf4_qlora`` makes for the fused lane,
  one whole stack at a time instead of one expert at a time.
* **Trainable expert LoRA.** #38 requires the expert adapter be zero and frozen,
  which restricts it to ``TRAIN_EXPERTS=0``. Batching the low-rank delta as a
  padded double-``bmm`` costs little and keeps the delta where it has to be —
  added to the *pre-activation* projection, since
  ``act(Wx + BAx) != act(Wx) + d`` for any cheap ``d`` — so the package's
  default ``TRAIN_EXPERTS=1`` works on this path.

Numerics: expert contributions are summed in group-sorted order rather than
ascending expert id, an ulp-level reordering — the same class of difference
``ExpertsLoRA._forward_decode`` already documents. Opt-in for that reason, like
``enable_fast_train``.

Usage::

    from experts4bit_qlora import batched_fallback_stats, enable_batched_train
    n = enable_batched_train(model)     # assert n > 0, or you are on the loop
    ...                                 # train
    st = batched_fallback_stats(model)  # the count says PATCHED; this says what RAN
    assert st["fallback_calls"] == 0, st["by_reason"]   # or record it on the receipt
    disable_batched_train(model)
"""
from __future__ import annotations

import os
import types

import torch

# Padded-bmm cutoff: group sizes come from the router, so one hot expert makes the
# padded block `G * max(sizes)` rows wide however few rows are real. Past this
# multiple of the real rows, fall back to the reference loop — pathological routing
# must not cost more than it did without this path. A guard, not a tuned optimum;
# under even remotely balanced routing the ratio sits near 1.
#
# Overridable because the guard is a SPEED guard, not a correctness one, and one use
# of this path is not about speed at all. Falling back is correct and batching is
# correct -- they compute the same function, and the fallback exists only so that
# pathological routing cannot cost more than not having this path. But a *parity*
# arm wants the batched arithmetic on every call: a run that falls back is measuring
# the reference against itself, which is how three families (OLMoE, Qwen3, Gemma-4)
# produced VOID rows in the tp1 bundle before `batched_fallback_stats` existed to
# say so. Raising this trades peak memory and speed for engagement, never numerics.
# `batched_fallback_stats` reports the limit in force so a receipt says which it ran.
_PAD_WASTE_LIMIT = float(os.environ.get("E4B_BATCHED_PAD_WASTE_LIMIT", "4.0"))


def _dequant_whole(packed, absmax, n_exp, out_f, in_f, quant_type, blocksize, dtype):
    """The whole expert stack in one ``dequantize_4bit``. See the module docstring for
    why the flattened absmax is exact rather than approximately right."""
    import bitsandbytes.functional as F
    from bitsandbytes.functional import QuantState

    state = QuantState(
        absmax=absmax.reshape(-1),
        shape=torch.Size((n_exp * out_f, in_f)),
        dtype=dtype,
        blocksize=blocksize,
        quant_type=quant_type,
        code=F.get_4bit_type(quant_type, device=packed.device),
    )
    return F.dequantize_4bit(packed.reshape(-1, 1), quant_state=state).view(n_exp, out_f, in_f)


class _FrozenGroupedProj(torch.autograd.Function):
    """``x_pad @ W_e.T`` for every group at once, decoding W in both directions.

    ``x_pad`` is ``[G, maxn, in]``; the result is ``[G, maxn, out]``. Only the packed
    bytes are saved — saving the decoded stack is what would force gradient
    checkpointing, and saving it per layer is what would not fit.
    """

    @staticmethod
    def forward(ctx, x_pad, packed, absmax, n_exp, out_f, in_f, eids, quant_type, blocksize):
        W = _dequant_whole(packed, absmax, n_exp, out_f, in_f, quant_type, blocksize, x_pad.dtype)
        # `eids is None` means every expert is active in ascending order — the common
        # case at any real token count. Skipping the gather there avoids a second
        # [G, out, in] copy of the stack at exactly the moment it is largest.
        Wg = W if eids is None else W[eids]
        out = torch.bmm(x_pad, Wg.transpose(1, 2))
        ctx.save_for_backward(packed, absmax, eids)
        ctx.meta = (n_exp, out_f, in_f, quant_type, blocksize)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        packed, absmax, eids = ctx.saved_tensors
        n_exp, out_f, in_f, quant_type, blocksize = ctx.meta
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_out = grad_out.contiguous()
            W = _dequant_whole(packed, absmax, n_exp, out_f, in_f, quant_type, blocksize,
                               grad_out.dtype)
            Wg = W if eids is None else W[eids]
            grad_x = torch.bmm(grad_out, Wg)
            del W, Wg
        return (grad_x,) + (None,) * 8


def _lora_delta_padded(x_pad, lora_A, lora_B, eids, scaling):
    """``scaling * B_e(A_e x)`` for every group at once. Adapters may sit in a higher
    precision than the activations (fp32 adapters over bf16 compute is the shipped
    configuration), so compute in the adapter dtype and cast the delta back."""
    A = lora_A if eids is None else lora_A[eids]      # [G, r, in]
    B = lora_B if eids is None else lora_B[eids]      # [G, out, r]
    d = torch.bmm(torch.bmm(x_pad.to(A.dtype), A.transpose(1, 2)), B.transpose(1, 2))
    from ..lora import _scaled                         # lazy, as this module's other lora imports (no cycle at import time)
    return _scaled(d, scaling).to(x_pad.dtype)


#: The per-call fallback reasons this path records, in the order they are tested.
#: Every fallback lands on the reference forward -- correct, and invisible from
#: the output -- so the COUNT is the only evidence a caller has that an arm ran
#: batched at all. (tp1 read OLMoE's batched arm as VOID because some layers fell
#: back on pad waste with nothing counting them.)
FALLBACK_REASONS = ("evicted_storage", "empty_batch", "pad_waste")


def _fresh_stats() -> dict:
    return {"calls": 0, "batched": 0, "fallback_calls": 0,
            "by_reason": {r: 0 for r in FALLBACK_REASONS}}


def _fallback(mod, reason: str, reference, *args):
    st = mod._e4b_batched_stats
    st["fallback_calls"] += 1
    st["by_reason"][reason] += 1
    return reference(*args)


class _GatherTokenRows(torch.autograd.Function):
    """``hs.index_select(0, order // k)`` -- every token copied to each of its k expert
    rows, in expert-sorted order -- with a deterministic backward (#765).

    ``index_select``'s own backward scatters the k gradient copies back into each token
    row with ``index_add_``, i.e. CUDA float atomics, so dL/dx differed call to call on
    identical inputs. ``order`` is a permutation of the flat (token, slot) cells, so the
    backward instead assigns each row's gradient to its own cell and sums the k cells of
    a token along a fixed axis. The forward is unchanged (one gather)."""

    @staticmethod
    def forward(ctx, hs, order, k):
        ctx.save_for_backward(order)
        ctx.k = k
        ctx.tokens = hs.shape[0]
        return hs.index_select(0, torch.div(order, k, rounding_mode="floor"))

    @staticmethod
    def backward(ctx, grad):
        (order,) = ctx.saved_tensors
        buf = grad.new_zeros(ctx.tokens * ctx.k, grad.shape[1])
        buf[order] = grad
        return buf.view(ctx.tokens, ctx.k, grad.shape[1]).sum(1), None, None


def batched_experts_train_forward(mod, hidden_states, top_k_index, top_k_weights):
    """Batched replacement for ``ExpertsLoRA.forward``. Falls back to the reference
    forward — not to a slower version of itself — whenever the batched shape would be
    wasteful or the storage is not there. Every call is counted on
    ``mod._e4b_batched_stats`` (``calls``, ``batched``, ``fallback_calls``,
    ``by_reason``); read them through :func:`batched_fallback_stats`."""
    from ..lora import _epilogue

    base = mod.base
    reference = mod._e4b_batched_ref
    input_dtype = hidden_states.dtype
    compute_dtype = base.compute_dtype if base.compute_dtype is not None else input_dtype
    mod._e4b_batched_stats["calls"] += 1
    args = (hidden_states, top_k_index, top_k_weights)

    # Under expert offload the packed buffers are 0-element placeholders between
    # forwards. Entering the dequant with one produces a shaped-but-empty stack rather
    # than an error, so check before, not after.
    if base.gate_up_proj.numel() == 0 or base.down_proj.numel() == 0:
        return _fallback(mod, "evicted_storage", reference, *args)

    hs = hidden_states.to(compute_dtype)
    tokens, hidden = hs.shape
    k = top_k_index.shape[1]
    n_exp = base.num_experts
    dev = hs.device

    flat = top_k_index.reshape(-1)
    order = torch.argsort(flat, stable=True)
    token_rows = torch.div(order, k, rounding_mode="floor")
    top_pos = order - token_rows * k
    counts = torch.bincount(flat, minlength=n_exp)
    active = torch.nonzero(counts, as_tuple=False).view(-1)
    sizes = counts[active]
    n_grp = int(active.numel())
    if n_grp == 0:
        # No token routed anywhere — an empty batch. `sizes.max()` would raise on the
        # empty tensor, where the reference simply returns its zero accumulator.
        return _fallback(mod, "empty_batch", reference, *args)
    widest = int(sizes.max())
    total = int(sizes.sum())
    if n_grp * widest > _PAD_WASTE_LIMIT * total:
        return _fallback(mod, "pad_waste", reference, *args)
    mod._e4b_batched_stats["batched"] += 1

    grp = torch.repeat_interleave(torch.arange(n_grp, device=dev), sizes)
    slot = torch.arange(total, device=dev) - (torch.cumsum(sizes, 0) - sizes)[grp]
    # None means "all experts, in order" — see _FrozenGroupedProj.forward.
    eids = None if (n_grp == n_exp) else active

    a_cat = _GatherTokenRows.apply(hs, order, k)   # hs.index_select(0, token_rows), deterministic backward
    x_pad = a_cat.new_zeros(n_grp, widest, hidden)
    x_pad[grp, slot] = a_cat

    gu_out, gu_in = base._gate_up_shape
    proj = _FrozenGroupedProj.apply(
        x_pad, base.gate_up_proj, base.gate_up_absmax, n_exp, gu_out, gu_in,
        eids, base.quant_type, base.blocksize,
    ) + _lora_delta_padded(x_pad, mod.gate_up_lora_A, mod.gate_up_lora_B, eids, mod.scaling)

    # The base's OWN epilogue, never an assumed SwiGLU: a hardcoded act(gate)*up here
    # would silently drop DeepSeek-V4's clamps while the frozen base still applies them.
    h = _epilogue(base, proj)

    dn_out, dn_in = base._down_shape
    out_pad = _FrozenGroupedProj.apply(
        h, base.down_proj, base.down_absmax, n_exp, dn_out, dn_in,
        eids, base.quant_type, base.blocksize,
    ) + _lora_delta_padded(h, mod.down_lora_A, mod.down_lora_B, eids, mod.scaling)

    rows = out_pad[grp, slot] * top_k_weights[token_rows, top_pos, None]
    # fp32 accumulation, same as the reference: bf16 routing weights over many
    # contributions is where a plain sum loses digits. NOT index_add_ (#765): each
    # token's k rows would land through CUDA float atomics in whatever order the
    # threads win, so identical inputs give different sums call to call once k >= 3
    # (grouped-nf4-gemm#408 measured it). ``order`` is a permutation of the flat
    # (token, slot) cells, so scattering by assignment writes each cell once and the
    # per-token reduction becomes a fixed-axis sum -- fast.py's _scatter_combine,
    # kept torch-only here because this path must work without grouped-nf4-gemm.
    # Costs one [tokens*k, hidden] fp32 transient; the backward is a gather.
    final = torch.zeros(tokens * k, hidden, dtype=torch.float32, device=dev)
    final[order] = rows.float()
    return final.view(tokens, k, hidden).sum(1).to(input_dtype)


def batched_train_available() -> bool:
    """True on any install of this package — the point of this path. Present so
    callers can branch symmetrically with ``fast_available()``."""
    return True


def enable_batched_train(model, verbose: bool = False) -> int:
    """Route ``ExpertsLoRA`` training through the batched path. Returns the number
    patched; assert it, because ``0`` and "silently still on the loop" look the same
    from the caller's side.

    Choosing between this and ``enable_fast_train``: this one wins the module
    docstring's toy-width microbench, but at Qwen3-30B width it gives no speed-up over
    the reference loop and costs the most peak memory of any lane (a whole decoded
    stack rather than a single decoded expert; module docstring, claim
    ``e4b.train.fast-train-dgrad``). Default to ``enable_fast_train(dgrad=True)``;
    take this one when ``grouped-nf4-gemm`` will not build.

    A module already carrying the fused training patch is SKIPPED rather than wrapped.
    Both patch ``ExpertsLoRA.forward``, so stacking them would make this path's
    fallbacks — pad-waste, evicted storage — land on the fused forward instead of the
    reference, which is not what "fall back" is supposed to mean. Call
    ``disable_fast_train`` first if you want to switch lanes.

    The count says which modules are PATCHED, not which calls ran batched: every
    forward may still fall back to the reference (pad waste past ``_PAD_WASTE_LIMIT``,
    evicted storage under offload, an empty batch), and a fallback is correct and
    invisible from the output. Each patched module counts its calls; read
    :func:`batched_fallback_stats` after a run and assert ``fallback_calls`` is what
    the arm expected (``0`` for a "batched" receipt).

    Refuses (``EpilogueContractError``) a wrapper whose base violates the
    stock-epilogue contract (:func:`experts4bit_qlora.assert_stock_epilogue`): a
    biased or clamped expert stack is unfaithful on the reference path too, so
    there is nothing correct to leave it on. Refuses (``AbsmaxCompressedError``) a
    model whose expert absmax ``compress_expert_absmax_`` double-quantized
    (``E4B_ABSMAX_DQ=1``): this path dequantizes whole stacks from the fp32 buffer.
    Use it as the no-extras training path (torch + bitsandbytes only) when ``[fast]`` will
    not build; it costs peak memory for a decoded stack. See
    ``docs/solutions/qlora-fused-moe-experts.md``.
    """
    # Reads the fp32 expert absmax: a double-quantized one (E4B_ABSMAX_DQ=1) is refused by name.
    from ..absmax_dq import refuse_compressed_absmax
    refuse_compressed_absmax(model, "enable_batched_train")
    from experts4bit_qlora.lora import ExpertsLoRA

    from .fast import _refuse_wrapped

    patched = 0
    for mod in model.modules():
        if not isinstance(mod, ExpertsLoRA) or hasattr(mod, "_e4b_batched_ref"):
            continue
        # Mutual exclusion with the fused training patch: wrapping it would leave this
        # path's fallbacks pointing at the fused forward rather than the reference.
        if hasattr(mod, "_e4b_train_ref"):
            if verbose:
                print("[e4b.batched] skip: enable_fast_train already patched this "
                      "module; call disable_fast_train first")
            continue
        base = mod.base
        # Same bargain as enable_fast/enable_fast_train, decided by the shared
        # structural contract: a wrapped base whose forward this path cannot
        # reproduce (per-expert biases, an epilogue not exposed as `_apply_gate`) is
        # REFUSED, never skipped -- the wrapper's reference forward is the same
        # re-implementation and would be just as wrong (#397).
        _refuse_wrapped(mod, "enable_batched_train")
        if getattr(base, "bits", None) != 4:
            if verbose:
                print(f"[e4b.batched] skip: {getattr(base, 'bits', '?')}-bit storage, "
                      "the whole-stack dequant is 4-bit only")
            continue
        mod._e4b_batched_ref = mod.forward
        mod._e4b_batched_stats = _fresh_stats()
        mod.forward = types.MethodType(
            lambda self, hs, tki, tkw: batched_experts_train_forward(self, hs, tki, tkw), mod)
        patched += 1
    if verbose:
        print(f"[e4b.batched] batched training path on {patched} ExpertsLoRA module(s)")
    return patched


def batched_fallback_stats(model) -> dict:
    """Per-call counters for every module :func:`enable_batched_train` patched.

    Returns ``{"modules", "calls", "batched", "fallback_calls", "by_reason",
    "per_module"}``: the totals across modules, the breakdown by reason
    (``evicted_storage``, ``empty_batch``, ``pad_waste`` -- see ``FALLBACK_REASONS``)
    and one dict per module in ``model.modules()`` order. ``modules == 0`` means the
    path is not enabled on this model. A fallback lands on the reference forward,
    so nothing in the OUTPUT distinguishes a batched call from one that fell back;
    this is the instrument, and an arm claiming the batched path asserts
    ``fallback_calls == 0`` (or records the count on the receipt).
    """
    per_module = [dict(m._e4b_batched_stats, by_reason=dict(m._e4b_batched_stats["by_reason"]))
                  for m in model.modules() if hasattr(m, "_e4b_batched_stats")]
    out = {"modules": len(per_module), "calls": 0, "batched": 0, "fallback_calls": 0,
           "pad_waste_limit": _PAD_WASTE_LIMIT,   # which guard was in force, on the receipt
           "by_reason": {r: 0 for r in FALLBACK_REASONS}, "per_module": per_module}
    for st in per_module:
        for k in ("calls", "batched", "fallback_calls"):
            out[k] += st[k]
        for r in FALLBACK_REASONS:
            out["by_reason"][r] += st["by_reason"][r]
    return out


def disable_batched_train(model) -> int:
    """Restore the reference forward. Returns the number restored.

    Refuses to unpatch a module something else has patched ON TOP of, and says so.
    ``enable_fast_train`` predates this module and does not know to skip a
    batched-patched module, so ``enable_batched_train`` then ``enable_fast_train``
    stacks: the fused patch captures THIS path's forward as its reference. Restoring
    from underneath that would hand the module back the true reference while the layer
    above still holds ours, and a later ``disable_fast_train`` would reinstate exactly
    the forward this call was meant to remove — leaving the module on a path with no
    ``_e4b_batched_ref`` to undo it. Unwind the outer patch first.
    """
    import warnings

    n = 0
    for mod in model.modules():
        ref = getattr(mod, "_e4b_batched_ref", None)
        if ref is None:
            continue
        if hasattr(mod, "_e4b_train_ref"):
            warnings.warn(
                "[e4b.batched] not restoring: enable_fast_train patched over this "
                "module, so its reference is this path's forward. Call "
                "disable_fast_train first, then disable_batched_train.",
                RuntimeWarning, stacklevel=2)
            continue
        mod.forward = ref
        del mod._e4b_batched_ref
        # The counters go with the patch: a re-enable starts from zero, and
        # `batched_fallback_stats` reports only modules the path is live on.
        if hasattr(mod, "_e4b_batched_stats"):
            del mod._e4b_batched_stats
        n += 1
    return n
