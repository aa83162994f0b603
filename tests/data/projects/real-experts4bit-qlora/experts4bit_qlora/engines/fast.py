"""Optional fused-GEMM fast path — ``pip install "experts4bit-qlora[fast]"``.

Routes the frozen-expert projections of :class:`ExpertsNbit` through
``grouped-nf4-gemm``'s single-launch grouped kernel (``gemm_4bit_grouped``:
NF4 decoded to fp32 in registers inside the GEMM, fp32 accumulation, bf16
epilogue) instead of the per-expert dequantize-then-``linear`` loop. At bs=1
decode the reference loop pays ~3 kernel launches per active expert plus a
full bf16 weight materialization; the fused path is one launch over all
active experts and reads only packed bytes.

``enable_fast`` is inference-only by design: ``gemm_4bit_grouped`` has no
backward, so any forward that requires grad (QLoRA training) silently uses the
reference path — the recompute-backward training semantics are untouched.

**That is a statement about ``enable_fast``, not about this module.** Training
has its own fused entry point here: ``enable_fast_train`` (see below) routes the
``ExpertsLoRA`` *training* forward through ``nf4_qlora.fused_grouped_lora``,
whose backward recomputes one decoded expert at a time, and the expert LoRA
delta trains through it. This paragraph used to read "inference-only by design"
with no such qualifier, describing the whole module; it was written before that
path existed and was then quoted back at the maintainers as evidence the package
had no training accelerator (issue #38). If you add another entry point, say so
here — a reader who trusts a stale module header does not go looking further
down the file.

Note that ``enable_fast_train`` needs ``grouped-nf4-gemm >= 0.2.4`` for the
``nf4_qlora`` module, and returns ``0`` when it is missing. Pass ``verbose=True``
to be told which, and assert the return is non-zero: a silent ``0`` is
indistinguishable from "there is no fast training path".

Accuracy, measured rather than asserted. The two paths dequantize the *same*
NF4 values and the fused path accumulates in fp32, which measured *more*
accurate than the reference's bf16 materialization on every cell of the
kernel's stamped **per-op** property suite. **That does not survive
composition**: through 16 layers of OLMoE-1B-7B the fused path is consistently
*worse*, costing **+0.023% perplexity** (7.45645 vs the reference's 7.45474 on
24 independent 2048-token chunks). A per-op accuracy result is not a
model-level one, and this docstring previously implied it was. For scale, the
NF4 KV cache costs ~2.1% — about 92x more. Deeper models compound further;
94 layers is unmeasured.

Usage::

    from experts4bit_qlora import enable_fast
    n = enable_fast(model)      # patches eligible ExpertsNbit modules
    # ... generate / evaluate; training steps automatically fall back ...
    disable_fast(model)         # restore, if wanted

Eligibility (checked per module, ineligible modules are left untouched):
NF4 4-bit storage, blocksize 64, K divisible by 64 on both projections, CUDA
storage, and an epilogue this path can reproduce. A subclass that overrides
``forward`` is skipped rather than silently mis-activated — unless it exposes
``_apply_gate`` (DeepSeek-V4's clamped SwiGLU), which the fused paths call, so
they cannot drift from the reference. gpt-oss stays skipped: its forward also
adds per-expert biases, which no fused path here applies (an ``ExpertsLoRA`` over
it applies them on its own unfused loop, and is refused here).
"""
from __future__ import annotations

from typing import Optional

import types

import os

import torch

from ..absmax_dq import expert_absmax_fp32
from .batched import _GatherTokenRows


def fast_available() -> bool:
    """True iff the fused kernel package is importable and CUDA is up."""
    try:
        from nf4_grouped import gemm_4bit_grouped  # noqa: F401
    except ImportError:
        return False
    return torch.cuda.is_available()


def _eligible(mod) -> Optional[str]:
    """Return None if ``mod`` can take the fast path, else the reason not."""
    # Checked BEFORE quant_type, because an MXFP4-arena module still reports
    # `quant_type="nf4"` -- that is the class the loader built, and only its
    # BUFFERS were re-declared to MXFP4 geometry. So the nf4 test below passes it,
    # and the `is_cuda` test below rejects it only while it is still on meta. The
    # kernel here reads fp32 absmax per 64 elements; MXFP4 carries uint8 e8m0 per
    # 32, so the reshape would either raise mid-forward or, at the sizes where the
    # element counts happen to divide, compute nonsense.
    if getattr(mod, "_e4b_mxfp4_arena", False):
        return ("storage is MXFP4 (arena), which the NF4 grouped kernel cannot read — "
                "the MXFP4 forward is wired by nvme_experts and needs no patch here")
    if getattr(mod, "bits", None) != 4 or getattr(mod, "quant_type", None) != "nf4":
        return "storage is not nf4-4bit"
    if getattr(mod, "blocksize", None) != 64:
        return f"blocksize {getattr(mod, 'blocksize', None)} != 64"
    n1, k1 = mod._gate_up_shape
    n2, k2 = mod._down_shape
    if k1 % 64 or k2 % 64:
        return "K not divisible by 64"
    if not mod.gate_up_proj.is_cuda:
        return "storage not on CUDA"
    return None


def _train_storage_reason(base) -> Optional[str]:
    """``_eligible``'s storage half, for the TRAINING patch: the reason the fused kernel cannot read ``base``'s packed bytes, or
    None. Device placement is deliberately not checked -- an offloaded base lives on the host and streams in -- and only a
    POSITIVELY known mismatch refuses (an attribute this base does not carry is not evidence against it). ``enable_fast_train``
    had no storage gate at all: an fp4 store at blocksize 64 would have been decoded through the NF4 table, silently wrong."""
    qt, bits, bs = getattr(base, "quant_type", None), getattr(base, "bits", None), getattr(base, "blocksize", None)
    if qt is not None and qt != "nf4":
        return f"storage quant_type {qt!r} is not nf4"
    if bits is not None and bits != 4:
        return f"storage is {bits}-bit, not 4-bit"
    if bs is not None and bs != 64:
        return f"blocksize {bs} != 64"
    try:
        (_n1, k1), (_n2, k2) = base._gate_up_shape, base._down_shape
    except (AttributeError, TypeError, ValueError):
        return None
    if k1 % 64 or k2 % 64:
        return f"K not divisible by 64 (gate_up K={k1}, down K={k2})"
    return None


def recurrent_kernel_fallbacks(model) -> list:
    """The kernel-backed functions of this model's own modeling modules that resolved to transformers' reference PyTorch path
    because their package (mamba-ssm, causal-conv1d, flash-linear-attention) is absent: ``["<module>.<function>", ...]``.

    transformers decides once, at import (``use_kernel_func_from_hub_with_fallback``), and swallows the import error, so the only
    witness is the wrapper's own ``is_new_implementation`` cell. These are the hybrid families' recurrent blocks (Mamba-2,
    short conv, Gated DeltaNet): outside the expert runtime, but on the fallback they run as unfused reference PyTorch instead of
    their packages' kernels, so a "fast" arm that pays the fallback is not the fast path."""
    import sys
    out = set()
    for name in {type(m).__module__ for m in model.modules()}:
        mod = sys.modules.get(name)
        if mod is None or not name.startswith("transformers.models."):
            continue
        for attr, fn in vars(mod).items():
            code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None)
            if code is None or not cells or "is_new_implementation" not in code.co_freevars:
                continue
            try:
                if cells[code.co_freevars.index("is_new_implementation")].cell_contents is False:
                    out.add(f"{name.rsplit('.', 1)[-1]}.{attr}")
            except ValueError:
                continue
    return sorted(out)


#: What ``enable_fast_train`` did, for an engagement census: modules patched, and every skipped module's reason. A fast arm whose
#: ``skipped`` is non-empty ran PART of its experts on the reference path and must not be read as the fused path.
FAST_TRAIN_STATS = {"patched": 0, "skipped": {}, "recurrent_fallbacks": [], "absmax_dq": None,   # absmax_dq: the last call's record
                    "det_gather": 0}   # training forwards whose token gather took the deterministic backward


def det_gather_enabled() -> bool:
    """``E4B_TRAIN_DET_GATHER=1``: the fused training forward's token gather takes ``_GatherTokenRows``' deterministic
    backward (engines/batched.py, #765) instead of ``index_select``'s. Off by default until it is shown self-identical
    on a card; anything but ``1`` is off."""
    return os.environ.get("E4B_TRAIN_DET_GATHER", "0").strip() == "1"


def _refuse_under_capture(hidden_states) -> None:
    """Refuse by name inside a CUDA-graph capture (#527).

    The grouped path sizes its launch grid from host-side per-expert counts
    (``counts[active].tolist()``): a host sync AND a data-dependent launch, so
    it cannot be captured by construction, and neither can the reference path
    it falls back to (its dequantize synchronizes). Without this the failure
    is ``operation not permitted when stream is capturing`` from inside
    ``torch.bincount``, three frames down. The capturable engine is
    ``enable_pipelined_residency``: its expert ids never leave the device.
    """
    if hidden_states.is_cuda and torch.cuda.is_current_stream_capturing():
        raise RuntimeError(
            "enable_fast's grouped expert path cannot run under CUDA-graph "
            "capture: it sizes its launch from host-side per-expert counts "
            "(a host sync and a data-dependent launch). Capture the decode "
            "step with enable_pipelined_residency instead, whose expert ids "
            "stay on the device (#527).")


def _group_by_expert(flat, E):
    """Host-side group sizes and expert ids for the grouped kernels, with ONE device-to-host read.

    The grouped launch grid is sized from host-side per-expert counts (the kernels' contract), so
    one read is the floor. The previous form paid more than one: ``torch.bincount`` reads its
    input's max back to size the output, ``torch.nonzero`` reads its count back, and the two
    ``.tolist()`` calls are one read each -- five synchronizing calls per grouped forward,
    measured with ``torch.cuda.set_sync_debug_mode`` (one ``bincount`` call counts twice). In a
    training step that is two forwards per layer under checkpointing, so 10 of the 13 host syncs
    of a fused MoE layer pass came from here and grouped-nf4-gemm's index transfers (#945).

    ``scatter_add_`` builds the same counts without a read, and one ``.tolist()`` brings them
    back; the lists are rebuilt on the host. Identical values and order to the old form: the
    non-empty experts in ascending id, and their counts, as Python ints.

    ``E4B_GROUPING=legacy`` restores the old five-read form, for A/B measurement only.
    """
    if os.environ.get("E4B_GROUPING", "").strip().lower() == "legacy":
        counts = torch.bincount(flat, minlength=E)
        active = torch.nonzero(counts, as_tuple=False).view(-1)
        return counts[active].tolist(), active.to(torch.int32).tolist()
    counts = torch.zeros(E, dtype=torch.int64, device=flat.device)
    counts.scatter_add_(0, flat.reshape(-1).to(torch.int64), torch.ones(flat.numel(), dtype=torch.int64, device=flat.device))
    counts_h = counts.tolist()               # the one read: the launch grid needs host sizes
    expert_ids = [e for e, c in enumerate(counts_h) if c]
    return [counts_h[e] for e in expert_ids], expert_ids


def fused_experts_forward(mod, hidden_states, top_k_index, top_k_weights):
    """Fused inference forward with the reference signature and semantics.

    Falls back to the module's reference forward whenever grad is required
    (training) or the input dtype isn't a kernel epilogue dtype.
    """
    _refuse_under_capture(hidden_states)
    if torch.is_grad_enabled() and (
        hidden_states.requires_grad or any(p.requires_grad for p in mod.parameters())
    ):
        return mod._e4b_fast_ref(hidden_states, top_k_index, top_k_weights)

    compute_dtype = mod.compute_dtype if mod.compute_dtype is not None else hidden_states.dtype
    if compute_dtype not in (torch.bfloat16, torch.float16):
        return mod._e4b_fast_ref(hidden_states, top_k_index, top_k_weights)

    from nf4_grouped import gemm_4bit_grouped
    from ..lora import _epilogue

    input_dtype = hidden_states.dtype
    tokens, hidden = hidden_states.shape
    k = top_k_index.shape[1]
    n1, k1 = mod._gate_up_shape
    n2, k2 = mod._down_shape
    E = mod.num_experts

    # token->expert sort: one (token, slot) row per assignment, grouped by expert
    flat = top_k_index.reshape(-1)
    order = torch.argsort(flat, stable=True)                      # [tokens*k], expert-grouped
    token_rows = order // k                          # source token per row
    top_pos = order - token_rows * k                 # which top-k slot it was
    sizes, expert_ids = _group_by_expert(flat, E)   # tokens per non-empty expert, ascending id

    a_cat = hidden_states.index_select(0, token_rows).to(compute_dtype).contiguous()

    up = gemm_4bit_grouped(
        a_cat,
        mod.gate_up_proj.view(E, n1, k1 // 2),
        expert_absmax_fp32(mod, "gate_up"),
        sizes,
        expert_ids,
    )
    # The base's OWN epilogue, not an assumed SwiGLU: `_epilogue` is the same hook
    # `ExpertsLoRA.forward` uses, so the fused and reference paths cannot drift apart.
    # DeepSeek-V4 loads INSIDE an ExpertsLoRA, and a plain `act_fn(gate) * up` here
    # silently drops its clamps while the frozen base still applies them.
    h = _epilogue(mod, up)

    down = gemm_4bit_grouped(
        h.to(compute_dtype).contiguous(),
        mod.down_proj.view(E, n2, k2 // 2),
        expert_absmax_fp32(mod, "down"),
        sizes,
        expert_ids,
    )

    w = top_k_weights[token_rows, top_pos].to(torch.float32)
    return _scatter_combine(down, w, order, token_rows, tokens, k, hidden,
                            hidden_states.device, input_dtype)


def fused_experts_lora_forward(mod, hidden_states, top_k_index, top_k_weights):
    """Grouped-GEMM forward for :class:`ExpertsLoRA` — the *streaming* expert path.

    ``ExpertsLoRA`` is not an ``ExpertsNbit`` subclass and never calls
    ``base.forward()`` (it reads ``base.gate_up_proj`` and calls
    ``base._project`` per expert), so patching the base is dead code on any
    model built by ``load_moe_4bit_streaming``. That left the grouped kernel
    unreachable in exactly the configuration the big-model claims run in. This
    is the same fusion as :func:`fused_experts_forward` — one launch over all
    active experts, reading only packed bytes — with the trainable low-rank
    delta applied on the already-expert-sorted rows.

    Offload-safe: the offload pre-hook sits on ``ExpertsLoRA``, so by the time
    this runs the layer's experts are staged. The ``numel() == 0`` check is a
    guard, not a policy — it routes an evicted read back to the reference path
    so the failure carries ``offload.py``'s explanatory error rather than a
    shape mismatch from inside the kernel.
    """
    base = mod.base
    _refuse_under_capture(hidden_states)
    if torch.is_grad_enabled() and (
        hidden_states.requires_grad or any(p.requires_grad for p in mod.parameters())
    ):
        return mod._e4b_fast_ref(hidden_states, top_k_index, top_k_weights)
    if mod.training:
        # A reentrant-checkpoint initial forward is no_grad but training; the
        # reference path preserves the exact summation order its grad-enabled
        # recompute will reproduce. Do not fuse under it.
        return mod._e4b_fast_ref(hidden_states, top_k_index, top_k_weights)

    compute_dtype = base.compute_dtype if base.compute_dtype is not None else hidden_states.dtype
    if compute_dtype not in (torch.bfloat16, torch.float16):
        return mod._e4b_fast_ref(hidden_states, top_k_index, top_k_weights)
    if base.gate_up_proj.numel() == 0 or base.down_proj.numel() == 0:
        return mod._e4b_fast_ref(hidden_states, top_k_index, top_k_weights)

    from nf4_grouped import gemm_4bit_grouped
    from ..lora import _epilogue

    input_dtype = hidden_states.dtype
    hidden_states = hidden_states.to(compute_dtype)
    tokens, hidden = hidden_states.shape
    k = top_k_index.shape[1]
    n1, k1 = base._gate_up_shape
    n2, k2 = base._down_shape
    E = base.num_experts

    flat = top_k_index.reshape(-1)
    order = torch.argsort(flat, stable=True)
    token_rows = order // k
    top_pos = order - token_rows * k
    sizes, expert_ids = _group_by_expert(flat, E)

    a_cat = hidden_states.index_select(0, token_rows).contiguous()

    up = gemm_4bit_grouped(
        a_cat,
        base.gate_up_proj.view(E, n1, k1 // 2),
        expert_absmax_fp32(base, "gate_up"),
        sizes,
        expert_ids,
    )
    # The rows are already grouped by expert, so each adapter applies to one
    # contiguous slice. The rank is tiny (r=8); the heavy GEMM is what fused.
    off = 0
    for e, n in zip(expert_ids, sizes):
        up[off:off + n] += mod._lora(
            a_cat[off:off + n], mod.gate_up_lora_A[e], mod.gate_up_lora_B[e])
        off += n

    # The base's OWN epilogue, not an assumed SwiGLU: `_epilogue` is the same hook
    # `ExpertsLoRA.forward` uses, so the fused and reference paths cannot drift apart.
    # DeepSeek-V4 loads INSIDE an ExpertsLoRA, and a plain `act_fn(gate) * up` here
    # silently drops its clamps while the frozen base still applies them.
    h = _epilogue(base, up)
    h = h.contiguous()

    down = gemm_4bit_grouped(
        h.to(compute_dtype),
        base.down_proj.view(E, n2, k2 // 2),
        expert_absmax_fp32(base, "down"),
        sizes,
        expert_ids,
    )
    off = 0
    for e, n in zip(expert_ids, sizes):
        down[off:off + n] += mod._lora(
            h[off:off + n], mod.down_lora_A[e], mod.down_lora_B[e])
        off += n

    w = top_k_weights[token_rows, top_pos].to(torch.float32)
    return _scatter_combine(down, w, order, token_rows, tokens, k, hidden,
                            hidden_states.device, input_dtype)


class _PermGather(torch.autograd.Function):
    """``src.reshape(-1)[perm]`` for a PERMUTATION ``perm`` of ``src``'s elements, with a scatter backward.

    The fused training forward gathered the routing weights with two-index advanced indexing,
    ``top_k_weights[order // k, order % k]``, whose backward is ``index_put_(accumulate=True)``: it
    linearizes the two indices and radix-sorts them before accumulating -- about ten launches per MoE
    layer backward. ``order`` covers every slot exactly once, so each gradient element receives exactly
    one value: a zero fill plus one ``index_copy_`` lands the same values, with no sort and no atomics.
    The forward picks the same elements in the same order.
    """

    @staticmethod
    def forward(ctx, src, perm):
        ctx.save_for_backward(perm)
        ctx.shape = src.shape
        return src.reshape(-1).index_select(0, perm)

    @staticmethod
    def backward(ctx, g):
        (perm,) = ctx.saved_tensors
        gs = g.new_zeros(perm.numel())
        gs.index_copy_(0, perm, g)
        return gs.view(ctx.shape), None


#: The combine's fp32 ``[tokens*k, hidden]`` work runs over row chunks of about this many bytes once the whole image would reach
#: :data:`COMBINE_CHUNK_MIN_BYTES`: every operation in it is row-wise (the scatter's assignment, the weight multiply, the weight
#: gradient's per-row sum, the down gradient's scale), so the chunks give the same bytes as the whole tensor -- measured
#: ``torch.equal`` on an RTX A2000 and on CPU at Qwen3-30B-A3B's packed row (4,096 tokens x top-8, hidden 2048), forward and both
#: gradients, at 1,024 to 32,768-row chunks. There the forward's transient fell from 768 to 320 MiB and the backward's from 768
#: to 256 MiB at 4,096-row chunks (bench/combine-chunk/receipts/combine_chunk_a2000.json). Below the gate (TC1's field recipe,
#: about 70 MiB) the whole-tensor path runs as before. ``E4B_COMBINE_CHUNK=0`` turns chunking off.
#: Why every chunk keeps at least :data:`COMBINE_CHUNK_MIN_ROWS` rows (a short tail joins the chunk before it): the weight gradient's
#: per-row sum is a CUDA reduction whose thread layout per row -- hence its summation order -- comes from the row count only below
#: 16 rows (ATen's Reduce.cuh: ``block_height = min(rows_pow2, 16)`` and then ``block_width = min(width_pow2, 512 / block_height)``;
#: with 16 or more rows every row is reduced by the same 32-lane layout whatever the GPU, for widths from 128 to 32,767). A 7-row
#: chunk at width 128 did change it on the A2000; 16-row chunks at width 2048 did not.
COMBINE_CHUNK_BYTES = 32 << 20
COMBINE_CHUNK_MIN_ROWS = 16
COMBINE_CHUNK_MIN_BYTES = 128 << 20
#: Combine calls that ran over row chunks (forward: the scatter; backward: the two gradients), for a training census.
COMBINE_STATS = {"chunked_fwd": 0, "chunked_bwd": 0}


def _combine_chunk_rows(rows: int, hidden: int):
    """Rows per chunk for a ``[rows, hidden]`` fp32 combine image, or None for the whole-tensor path (under the gate, or
    ``E4B_COMBINE_CHUNK=0``)."""
    full = rows * hidden * 4
    if full < COMBINE_CHUNK_MIN_BYTES or os.environ.get("E4B_COMBINE_CHUNK", "").strip() == "0":
        return None
    c = max(COMBINE_CHUNK_MIN_ROWS, COMBINE_CHUNK_BYTES // (hidden * 4))
    return c if rows >= 2 * c else None


def _row_chunks(rows: int, c: int):
    """``(start, end)`` row ranges of ``c`` rows; the last absorbs the remainder, so every chunk has ``c`` to ``2c - 1`` rows."""
    n = rows // c
    return [(i * c, rows if i == n - 1 else (i + 1) * c) for i in range(n)]


def _scatter_fill(buf, down, w, order):
    """``buf[order] = down.to(float32) * w[:, None]``, over row chunks when the image is large (same bytes)."""
    c = _combine_chunk_rows(down.shape[0], down.shape[1])
    if c is None:
        buf[order] = down.to(torch.float32) * w[:, None]
        return
    COMBINE_STATS["chunked_fwd"] += 1
    for s, e in _row_chunks(down.shape[0], c):
        buf[order[s:e]] = down[s:e].to(torch.float32) * w[s:e, None]


def _scatter_combine(down, w, order, token_rows, tokens, k, hidden, device, out_dtype):
    """Weighted combine of the expert-sorted rows back into token order.

    ``index_add_`` is the obvious way to do this and is what this path used
    first. On CUDA it accumulates with atomics, so the summation ORDER varies
    run to run and the result is nondeterministic: measured as a 1.2e-2 %
    perplexity spread across repeats on OLMoE, against a bit-stable 0.0 % for
    the reference path. A stable sort alone does not fix it — the atomics do it
    on their own.

    ``order`` is a permutation, so every destination index is written exactly
    once: scattering by assignment is deterministic, and the per-token reduction
    then becomes a fixed-axis ``sum`` rather than an atomic accumulation. Costs
    one ``[tokens*k, hidden]`` fp32 buffer, which at decode (tokens=1) is
    negligible.
    """
    buf = torch.zeros(tokens * k, hidden, dtype=torch.float32, device=device)
    _scatter_fill(buf, down, w, order)
    return buf.view(tokens, k, hidden).sum(1).to(out_dtype)


class _ScatterCombine(torch.autograd.Function):
    """``_scatter_combine`` for the TRAINING forward as one autograd node that saves the bf16 ``down`` rather than its fp32 copy.

    Under autograd the combine's multiply saved ``down.to(float32)`` -- a [tokens*k, hidden] fp32 tensor, 23.75 MB per MoE layer at
    380 tokens, top-8, hidden 2048 -- for its backward. This node saves ``down`` itself (half that, and an alias of a tensor the
    caller already made) and recasts it in backward, which is exact (bf16 -> fp32 widens). The backward replays autograd's own
    sequence for the composite -- the output cast's backward, the sum's expand, the view's reshape, the index_put's ``index`` for its
    values, the multiply's two products and the broadcast reduction as a keepdim sum, the casts -- so both gradients are the same bytes.
    """

    @staticmethod
    def forward(ctx, down, w, order, tokens, k, out_dtype):
        hidden = down.shape[1]
        buf = torch.zeros(tokens * k, hidden, dtype=torch.float32, device=down.device)
        _scatter_fill(buf, down, w, order)
        ctx.save_for_backward(down, w, order)
        ctx.tokens, ctx.k = tokens, k
        return buf.view(tokens, k, hidden).sum(1).to(out_dtype)

    @staticmethod
    def backward(ctx, g):
        down, w, order = ctx.saved_tensors
        k = ctx.k
        # The composite's expand + reshape + index makes row i of the incoming gradient's [tokens*k, hidden] fp32 image
        # g[order[i] // k]; reading it by that index copies the same fp32 values without materialising the expanded image
        # first (one [tokens*k, hidden] fp32 buffer less). The weight gradient runs before the down gradient, which then
        # scales gprod in place, so neither keeps a second fp32 product alive. Same values, same reduction: the same bytes
        # as autograd's composite (tests/test_moe_keep.py). TC1 amendment 57 read these temporaries at 1.07 GB of e4b's
        # packed-row training peak (engines/fast.py, Qwen3-30B-A3B, 4,096 tokens, top-8).
        need_down, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        c = _combine_chunk_rows(down.shape[0], down.shape[1])
        if c is None:
            gprod = g.to(torch.float32)[torch.div(order, k, rounding_mode="floor")]
            gdown = gw = None
            if need_w:
                gw = (gprod * down.to(torch.float32)).sum(1, keepdim=True).squeeze(1)
            if need_down:
                gdown = gprod.mul_(w[:, None]).to(down.dtype)
            return gdown, gw, None, None, None, None
        # Large images: the same row-wise operations over row chunks of the preallocated outputs (same bytes; see
        # COMBINE_CHUNK_BYTES), so only one chunk's fp32 product and copies are alive at a time.
        COMBINE_STATS["chunked_bwd"] += 1
        g32 = g.to(torch.float32)
        gw = torch.empty(down.shape[0], dtype=torch.float32, device=down.device) if need_w else None
        gdown = torch.empty_like(down) if need_down else None
        for s, e in _row_chunks(down.shape[0], c):
            gp = g32[torch.div(order[s:e], k, rounding_mode="floor")]
            if need_w:
                gw[s:e] = (gp * down[s:e].to(torch.float32)).sum(1, keepdim=True).squeeze(1)
            if need_down:
                gdown[s:e] = gp.mul_(w[s:e, None]).to(down.dtype)
        return gdown, gw, None, None, None, None


def _refuse_wrapped(mod, entry: str) -> None:
    """Raise when an ``ExpertsLoRA``'s base violates the stock-epilogue contract.

    Shared by the wrapper loops of :func:`enable_fast`, :func:`enable_fast_train`
    and ``enable_batched_train``: for a WRAPPED base there is no faithful forward
    to fall back to (the wrapper re-implements the epilogue the kernel would), so
    "skip" would mean "train or serve the wrong function quietly". A base whose
    biases only the wrapper's own unfused loop applies (gpt-oss) is refused too:
    the fused path would drop them, and a skip would leave a caller who asked for
    it on the reference loop without a word.
    """
    from experts4bit_qlora.lora import EpilogueContractError, assert_stock_epilogue

    try:
        assert_stock_epilogue(mod.base)
    except EpilogueContractError as exc:
        raise EpilogueContractError(
            f"{entry}: an ExpertsLoRA wraps a base whose epilogue this path cannot "
            f"reproduce -- {exc}"
        ) from exc


def enable_fast(model, verbose: bool = False) -> int:
    """Patch every eligible ``ExpertsNbit`` under ``model`` (or ``model`` itself).

    Also patches ``ExpertsLoRA`` wrappers — the streaming loader's expert
    module, which bypasses ``ExpertsNbit.forward`` entirely, so patching only
    the base would leave the grouped kernel unreachable on every offloaded
    model. A wrapped base is skipped rather than patched twice: its forward is
    never called.

    Returns the number of modules patched. Bare modules whose forward the grouped
    path cannot reproduce (per-expert biases, an epilogue not exposed as
    ``_apply_gate``: :func:`experts4bit_qlora.assert_stock_epilogue`) or whose storage
    is ineligible are skipped — pass ``verbose=True`` to print each skip reason once.
    An ``ExpertsLoRA`` whose BASE violates that contract is refused
    (``EpilogueContractError``) rather than skipped: its reference forward is the
    same re-implementation and is unfaithful too.
    Use it for inference when the ``[fast]`` extra (grouped-nf4-gemm, Triton, NVIDIA sm_80+
    under Linux) is installed and the per-expert loop is the bottleneck. Expects the modules
    :func:`experts4bit_qlora.load_moe_4bit_streaming` installs. Assert the count is > 0,
    because ``0`` and "still on the loop" look identical from the caller's side.

    What the count does and does not tell you: this function does not check that the
    kernel package is importable -- it patches every eligible module regardless, and the
    ``from nf4_grouped import gemm_4bit_grouped`` happens inside the patched forward. So
    ``0`` means no eligible module was found (not a missing kernel), and a missing
    grouped-nf4-gemm surfaces as ``ImportError`` at the FIRST forward that reaches the fused
    path (eval, no grad, bf16/fp16 compute), not here. Call :func:`fast_available` before
    this if you need to detect the kernel package up front. See
    ``docs/solutions/serve-large-moe-on-a-consumer-gpu.md``.
    """
    from experts4bit_qlora import ExpertsNbit
    from experts4bit_qlora.lora import EpilogueContractError, ExpertsLoRA, assert_stock_epilogue

    mods = list(model.modules()) if hasattr(model, "modules") else [model]
    patched = 0

    wrapped_bases = {id(m.base) for m in mods if isinstance(m, ExpertsLoRA)}
    for mod in mods:
        if not isinstance(mod, ExpertsLoRA):
            continue
        if type(mod).forward is not ExpertsLoRA.forward:
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: custom forward")
            continue
        # A wrapped base whose forward this path cannot reproduce is not SKIPPED: the
        # wrapper's own reference forward re-implements the same epilogue (`_epilogue`
        # covers a custom activation via `_apply_gate`, never per-expert biases), so a
        # violating base is unfaithful on EVERY path and there is no correct forward
        # to leave it on. The constructor refuses it; a base swapped in afterwards is
        # refused here through the same structural contract (#397) -- BEFORE the
        # storage eligibility test, which is about whether the kernel can run, not
        # about whether anything here is faithful.
        _refuse_wrapped(mod, "enable_fast")
        reason = _eligible(mod.base)
        if reason is not None:
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: {reason}")
            continue
        if hasattr(mod, "_e4b_fast_ref"):
            continue  # already enabled; idempotent
        mod._e4b_fast_ref = mod.forward
        mod.forward = fused_experts_lora_forward.__get__(mod)
        patched += 1

    for mod in mods:
        if not isinstance(mod, ExpertsNbit):
            continue
        if id(mod) in wrapped_bases:
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: wrapped by a patched "
                      "ExpertsLoRA (its forward is never called)")
            continue
        # A BARE module keeps its own forward, which is faithful by definition; what the
        # grouped path can reproduce is exactly the stock-epilogue contract (a custom
        # ACTIVATION via `_apply_gate` is fine, per-expert biases are not), so a
        # violating bare module is skipped -- not fused -- with the contract's reason.
        # Without this a BARE V4 module was skipped while the LoRA-wrapped one was fused.
        try:
            assert_stock_epilogue(mod)
        except EpilogueContractError as exc:
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: {exc}")
            continue
        reason = _eligible(mod)
        if reason is not None:
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: {reason}")
            continue
        if hasattr(mod, "_hot_residency"):
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: hot_residency enabled — disable it first")
            continue
        if hasattr(mod, "_e4b_cold_ref"):
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: cold engine enabled — disable it first")
            continue
        if hasattr(mod, "_e4b_pipe_ref"):
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: pipelined residency enabled — disable it first")
            continue
        if hasattr(mod, "_e4b_mxfp4_ref"):
            if verbose:
                print(f"[e4b.fast] skip {type(mod).__name__}: mxfp4 NVMe residency enabled — disable it first")
            continue
        if hasattr(mod, "_e4b_fast_ref"):
            continue  # already enabled; idempotent
        mod._e4b_fast_ref = mod.forward
        mod.forward = fused_experts_forward.__get__(mod)
        patched += 1
    # Train mode still costs you the kernel, but NOT for the reason this warning used
    # to give. The old text said "ExpertsLoRA only hands off to the patched base under
    # eval + no_grad", which described the era when `enable_fast` patched the BASE and
    # a wrapped base was reached only via `ExpertsLoRA._delegate_to_base`. The wrapper
    # loop above changed that: an `ExpertsLoRA` gets `fused_experts_lora_forward` on
    # ITSELF and its base is skipped. The conclusion survives anyway, because that
    # forward short-circuits to the reference path under `mod.training` (see its own
    # body) to preserve the summation order a reentrant-checkpoint recompute will
    # reproduce.
    #
    # Counting gemm_4bit_grouped itself on an A2000, wrapped module, all four states:
    #
    #   mode   adapter   fused kernel calls
    #   eval   zero      2
    #   eval   trained   2      <- reachable; a trained adapter does NOT kill it
    #   train  zero      0
    #   train  trained   0      <- the case this warns about
    #
    # Count the KERNEL, not the wrapper: once patched the wrapper is always invoked,
    # so counting calls to it reports 1 in every cell above and says nothing.
    if patched and getattr(model, "training", False):
        import warnings

        warnings.warn(
            f"[e4b.fast] model is in TRAINING mode: fused_experts_lora_forward falls back "
            f"to the reference path while `training` is set, so all {patched} patch(es) "
            "will be bypassed and the fused kernel will not run. Call model.eval() before "
            "inference.",
            RuntimeWarning,
            stacklevel=2,
        )
    # The non-zero-adapter warning that used to sit here is GONE, on both counts.
    # Obsolete: eval + a trained adapter fuses fine (row 2 above) — the wrapper's fused
    # forward applies the low-rank delta on the expert-sorted rows rather than skipping
    # it. And DEAD CODE besides: `unreachable` was only appended in the bare-module
    # loop, which `continue`s on every wrapped base, while `lora_parent` was keyed BY
    # wrapped bases — so the lookup could never hit and the warning could never fire.
    return patched


def disable_fast(model) -> int:
    """Undo :func:`enable_fast`; returns the number of modules restored."""
    mods = model.modules() if hasattr(model, "modules") else [model]
    restored = 0
    for mod in mods:
        if hasattr(mod, "_e4b_fast_ref"):
            mod.forward = mod._e4b_fast_ref
            del mod._e4b_fast_ref
            restored += 1
    return restored


def _dgrad_supported() -> bool:
    """Whether the installed ``grouped-nf4-gemm`` takes the ``dgrad_kernel`` flag.

    Checked rather than assumed: the flag landed in 0.7.0, and this package's
    ``[fast]`` extra admits older ones. Passing an unknown kwarg would raise from
    inside a training forward, which is a worse failure than not accelerating.
    """
    import inspect

    try:
        from nf4_qlora import fused_grouped_lora
    except ImportError:
        return False
    try:
        return "dgrad_kernel" in inspect.signature(fused_grouped_lora).parameters
    except (TypeError, ValueError):
        return False


def _dgrad_kwarg(lora_mod) -> dict:
    """``{"dgrad_kernel": True}`` only when this module opted in AND the installed
    kernel package understands it. Empty dict otherwise, so the call is unchanged."""
    if getattr(lora_mod, "_e4b_dgrad", False):
        return {"dgrad_kernel": True}
    return {}


def fused_experts_train_forward(lora_mod, hidden_states, top_k_index, top_k_weights):
    """Training-capable fused forward for an ``ExpertsLoRA``.

    The inference fast path patches the frozen ``ExpertsNbit`` base, which
    training can never reach: ``ExpertsLoRA`` must inject its low-rank delta
    *before* the SwiGLU, and the base kernel was forward-only anyway, so no
    ``dL/dx`` could flow through it.

    This composes both halves in the grouped layout: the frozen projection goes
    through ``grouped-nf4-gemm``'s differentiable wrapper (recompute-decode
    backward, one expert live at a time) and the trainable ``B(Ax)`` delta is
    added to the SAME pre-activation tensor -- which is the only place it is
    correct, since ``act(Wx + BAx) != act(Wx) + d``.

    Numerics note: this accumulates in fp32 and scatters exactly like the
    reference loop, but it sums experts in group-sorted order rather than
    ascending-expert-id order. That is an ulp-level reordering, the same class
    of difference ``_forward_decode`` already documents -- which is why this
    path is OPT-IN via ``enable_fast_train`` rather than a silent default.
    """
    from nf4_qlora import fused_grouped_lora
    from ..lora import _epilogue

    base = lora_mod.base
    input_dtype = hidden_states.dtype
    compute_dtype = base.compute_dtype if base.compute_dtype is not None else input_dtype
    hidden_states = hidden_states.to(compute_dtype)

    tokens, hidden = hidden_states.shape
    k = top_k_index.shape[1]
    n1, k1 = base._gate_up_shape
    n2, k2 = base._down_shape
    E = base.num_experts

    flat = top_k_index.reshape(-1)
    order = torch.argsort(flat, stable=True)
    token_rows = order // k
    sizes, expert_ids = _group_by_expert(flat, E)

    # Every token is copied to its k expert rows. index_select's own backward scatters the k gradient copies back with
    # index_add_ -- CUDA float atomics -- so dL/dx changes in its last bits call to call on identical inputs.
    # E4B_TRAIN_DET_GATHER=1 takes the same gather with batched.py's deterministic backward (#765): each row's gradient
    # assigned to its own cell (order is a permutation), then a fixed-axis sum over the k cells. The forward is identical.
    if det_gather_enabled():
        FAST_TRAIN_STATS["det_gather"] += 1
        a_cat = _GatherTokenRows.apply(hidden_states, order, k).contiguous()
    else:
        a_cat = hidden_states.index_select(0, token_rows).contiguous()

    # Set by `nvme_train.enable_nvme_train_residency` when this layer's frozen
    # experts come off an NVMe arena. Routed staging then fills only the routed
    # rows of a full-shaped stack, so a backward reading a row the recompute did
    # not re-stage would get uninitialized memory rather than an error. The
    # closures below run in BACKWARD, which is the one place that can happen, so
    # the check belongs here and nowhere else. `None` (the host-RAM home, whose
    # stage is always the whole layer) costs one attribute lookup per forward.
    guard = getattr(base, "_e4b_stage_guard", None)

    # weights_fn is load-bearing, not optional: under expert offload the views
    # below are TRANSIENT staged copies. nf4_qlora must not hold them on the
    # autograd ctx (that pinned all 48 layers and OOMed at 22.41 GB); it calls
    # this closure in backward instead, re-reading whatever is staged then --
    # which under gradient checkpointing is this layer, because the recompute
    # forward re-stages it first. `expert_absmax_fp32` is the stored fp32 view, as
    # before -- or, after compress_expert_absmax_ (E4B_ABSMAX_DQ=1), this layer's
    # absmax expanded from bitsandbytes' nested form: a transient the kernel reads
    # and drops, expanded again here in backward rather than held across layers.
    def _gate_up_now():
        if guard is not None:
            guard(expert_ids)
        return (base.gate_up_proj.view(E, n1, k1 // 2),
                expert_absmax_fp32(base, "gate_up"))

    proj = fused_grouped_lora(
        a_cat,
        base.gate_up_proj.view(E, n1, k1 // 2),
        expert_absmax_fp32(base, "gate_up"),
        sizes, expert_ids,
        lora_mod.gate_up_lora_A, lora_mod.gate_up_lora_B,
        weights_fn=_gate_up_now,
        scaling=lora_mod.scaling,     # alpha/r -- the reference applies it too
        **_dgrad_kwarg(lora_mod),
    )
    # The base's OWN epilogue, not an assumed SwiGLU: `_epilogue` is the same hook
    # `ExpertsLoRA.forward` uses, so the fused and reference paths cannot drift apart.
    # DeepSeek-V4 loads INSIDE an ExpertsLoRA, and a plain `act_fn(gate) * up` here
    # silently drops its clamps while the frozen base still applies them.
    h = _epilogue(base, proj)

    def _down_now():
        if guard is not None:
            guard(expert_ids)
        return (base.down_proj.view(E, n2, k2 // 2),
                expert_absmax_fp32(base, "down"))

    down = fused_grouped_lora(
        h.to(compute_dtype).contiguous(),
        base.down_proj.view(E, n2, k2 // 2),
        expert_absmax_fp32(base, "down"),
        sizes, expert_ids,
        lora_mod.down_lora_A, lora_mod.down_lora_B,
        weights_fn=_down_now,
        scaling=lora_mod.scaling,
        **_dgrad_kwarg(lora_mod),
    )

    # `order` is a permutation of the [tokens, k] slots, so this is the old `top_k_weights[token_rows, top_pos]`
    # gather -- same elements -- with a scatter backward instead of a sorted one (see _PermGather).
    w = _PermGather.apply(top_k_weights, order).to(torch.float32)
    # One node that saves the bf16 `down`, not its fp32 copy; same forward ops and the same backward bytes (see _ScatterCombine).
    return _ScatterCombine.apply(down, w, order, tokens, k, input_dtype)


def enable_fast_train(model, verbose: bool = False, dgrad: bool = False, absmax_dq=None) -> int:
    """Route ``ExpertsLoRA`` TRAINING through the fused grouped kernel.

    ``enable_fast`` patches the frozen base and is inference-only. This patches
    the ``ExpertsLoRA`` wrapper -- the module the model actually calls -- so the
    kernel is reached with gradients enabled.

    ``dgrad=True`` additionally routes the BACKWARD through
    ``grouped-nf4-gemm``'s single-launch dgrad kernel (>= 0.7.0) instead of its
    per-expert decode loop. The loop materializes a decoded expert per group; the
    kernel materializes nothing. A second opt-in rather than part of
    the first, because it is a second numerics change: the loop decodes with the
    same oracle the reference uses and is EXACT, the kernel accumulates fp32 in a
    different order and lands near 2.9e-3 -- inside the bf16 budget, not zero.
    Layer-composed fidelity is MEASURED (bench/dgrad-gate/): at 48 layers on
    Qwen3-30B-A3B, dgrad=True adds nothing to this lane's composed gradient error
    (4.97e-2 -> 4.99e-2 mean vs the reference) and is the fastest option at
    real width (2.52x, vs 1.72x without). The error this lane carries is the
    FORWARD fusion's, present with or without this flag.

    Requested but unsupported (``grouped-nf4-gemm`` older than 0.7.0) it is turned
    OFF with a warning rather than raising from inside a forward.

    Opt-in on purpose: it changes the expert summation ORDER (group-sorted vs
    ascending expert id), an ulp-level difference that should be a deliberate
    choice in a training run, not a silent one. Returns the number patched.
    Use it for training when the ``[fast]`` extra is installed. Returns the number of
    ``ExpertsLoRA`` wrappers patched (``0`` when ``nf4_qlora`` is unimportable -- assert it);
    refuses (``EpilogueContractError``) a wrapper whose base violates the stock-epilogue
    contract (:func:`experts4bit_qlora.assert_stock_epilogue`) instead of skipping it;
    ``dgrad=True`` on a kernel cut below 0.7.0 is downgraded with a ``RuntimeWarning``.
    Needs a CUDA device with Triton on sm_80+ (Linux). See
    ``docs/solutions/qlora-fused-moe-experts.md``.

    It also stores the frozen expert absmax double-quantized (``compress_expert_absmax_``) BY DEFAULT for
    resident training, as the CLI trainer does: TC1 amendments 28 / 31 (field recipe) and 56 (packed 4,096-token
    rows: 1.002 of the fp32 absmax's step for 1.35 GB on Qwen3-30B-A3B, held-out within 0.0002; one RTX 5090,
    torch 2.12 / triton 3.7 -- its packed-row speed under torch 2.8 is unread). The patched forward reads the absmax
    through ``expert_absmax_fp32``, which expands a double-quantized one to fp32 for the one layer the kernel is
    about to run. ``absmax_dq`` (or ``E4B_ABSMAX_DQ`` when it is None): ``False`` / ``0`` keeps the fp32 absmax,
    ``True`` / ``1`` requires the compression (a refusal raises ``ValueError``); unset compresses only when this
    call patched something, and not under ``OFFLOAD_EXPERTS=1`` or ``TRAIN_ARENA`` (the trainer's guards: those
    paths read the fp32 absmax by name). A model the compressor refuses -- expert offload, arena or 8-bit storage, a
    stack another engine patched -- keeps its fp32 absmax, and ``FAST_TRAIN_STATS["absmax_dq"]`` says why. The
    compression is lossy and stays after ``disable_fast_train``; to keep fp32, pass ``absmax_dq=False`` here.

    It also routes the model's training forward through the chunked causal-LM loss
    (``engines/chunked_lm_loss.py``) where the fp32 logits would reach 1 GiB -- ``E4B_CHUNKED_LM_LOSS``
    is ``auto`` by default; ``1`` (or a chunk size) chunks every training forward, ``0`` none;
    ``disable_fast_train`` unwinds it.
    """
    try:
        from nf4_qlora import fused_grouped_lora  # noqa: F401
    except ImportError:
        if verbose:
            print("[e4b.fast] grouped-nf4-gemm has no nf4_qlora: need >= 0.2.4")
        return 0
    from experts4bit_qlora.lora import ExpertsLoRA

    if dgrad and not _dgrad_supported():
        import warnings
        warnings.warn(
            "[e4b.fast] dgrad=True ignored: the installed grouped-nf4-gemm has no "
            "`dgrad_kernel` argument (it landed in 0.7.0). Upgrade with "
            "`pip install -U 'grouped-nf4-gemm>=0.14.0'`; the fused training path "
            "still runs, with its per-expert decode backward.",
            RuntimeWarning, stacklevel=2)
        dgrad = False

    patched = 0
    for mod in model.modules():
        if isinstance(mod, ExpertsLoRA) and hasattr(mod, "_e4b_train_ref"):
            # Already patched. The loop below would skip it silently, so a second
            # call asking for a DIFFERENT backward — the natural thing to do after
            # upgrading grouped-nf4-gemm — would return 0 patched and leave the
            # decode loop running, with nothing said. Re-patching in place would
            # capture our own forward as the reference, so say what to do instead.
            if getattr(mod, "_e4b_dgrad", False) != dgrad:
                import warnings
                warnings.warn(
                    f"[e4b.fast] enable_fast_train(dgrad={dgrad}) on a module already "
                    f"patched with dgrad={getattr(mod, '_e4b_dgrad', False)}: the "
                    "existing patch is kept and the flag is NOT applied. Call "
                    "disable_fast_train first to change the backward.",
                    RuntimeWarning, stacklevel=2)
            continue
        if isinstance(mod, ExpertsLoRA):
            # The kernel-free batched path patches the same forward. Patching over it
            # would capture ITS forward as this one's reference, so a later
            # disable_batched_train could not unwind and disable_fast_train would
            # reinstate the batched path. `enable_batched_train` refuses the mirror
            # case; this is the other half of that guard.
            if hasattr(mod, "_e4b_batched_ref"):
                if verbose:
                    print("[e4b.fast] skip: enable_batched_train already patched this "
                          "module; call disable_batched_train first")
                continue
            # Same bargain as `enable_fast`; this loop had no eligibility gate at all,
            # so every ExpertsLoRA was fused regardless of what its base computes. A
            # violating wrapped base is REFUSED, never skipped: the reference forward
            # it would be left on is the same unfaithful re-implementation (#397).
            _refuse_wrapped(mod, "enable_fast_train")
            # An MXFP4-arena base passes every check above -- it is `quant_type="nf4"`
            # by class and carries `_apply_gate` (V4) -- and then dies inside the
            # forward on `gate_up_absmax.view(E, n1, k1 // 64)`, because e8m0 scales
            # are one byte per 32 elements, not fp32 per 64. Refuse at patch time,
            # where the message can say why, rather than at step 1 of a rented run.
            if getattr(mod.base, "_e4b_mxfp4_arena", False):
                if verbose:
                    print(f"[e4b.fast] skip {type(mod).__name__}: base storage is "
                          "MXFP4 (arena); the NF4 grouped kernel cannot read it")
                continue
            reason = _train_storage_reason(mod.base)
            if reason is not None:
                FAST_TRAIN_STATS["skipped"][reason] = FAST_TRAIN_STATS["skipped"].get(reason, 0) + 1
                if verbose:
                    print(f"[e4b.fast] skip {type(mod).__name__}: {reason} (left on the reference path)")
                continue
            mod._e4b_train_ref = mod.forward
            mod._e4b_dgrad = dgrad
            mod.forward = types.MethodType(
                lambda self, hs, tki, tkw: fused_experts_train_forward(self, hs, tki, tkw),
                mod)
            patched += 1
    FAST_TRAIN_STATS["patched"] += patched
    FAST_TRAIN_STATS["recurrent_fallbacks"] = recurrent_kernel_fallbacks(model) if patched else []
    if FAST_TRAIN_STATS["recurrent_fallbacks"]:
        import warnings
        warnings.warn(
            "[e4b.fast] this model's recurrent blocks run transformers' reference PyTorch path, outside the fused expert runtime: "
            f"{', '.join(FAST_TRAIN_STATS['recurrent_fallbacks'])}. Install mamba-ssm / causal-conv1d / flash-linear-attention "
            "for their kernels.",
            RuntimeWarning, stacklevel=2)
    if verbose:
        skipped = sum(FAST_TRAIN_STATS["skipped"].values())
        print(f"[e4b.fast] fused TRAINING path on {patched} ExpertsLoRA module(s)"
              + (" (dgrad kernel backward)" if dgrad else "")
              + (f"; {skipped} skipped -- PARTIAL engagement: {FAST_TRAIN_STATS['skipped']}" if skipped else ""))
    # On by default (E4B_FUSED_ROPE=0 turns it off): the rotary embedding through one launch each way, bit-identical to the
    # Hugging Face composite (engines/rope_train.py), in the attention modules of this model only.
    from .rope_train import enable_fused_rope, fused_rope_requested
    if patched and fused_rope_requested():
        enable_fused_rope(model, verbose=verbose)
    # On by default since TC1 amendment 15 (E4B_FUSED_RMSNORM=0 turns it off): the frozen RMSNorms through one launch each way
    # instead of the composite's ~18. Near-exact, not exact (row reductions in another order, ~1e-5 of elements one bf16 ulp
    # off); the 5090 A/B (tc1-5090-45) read 0.924 shipped / 0.959 matched with held-out within 0.0021. A model with no frozen
    # RMSNorm is skipped quietly unless E4B_FUSED_RMSNORM=1 was set by hand.
    from .rmsnorm_train import enable_fused_rmsnorm_train, fused_rmsnorm_explicit, fused_rmsnorm_requested
    if patched and fused_rmsnorm_requested():
        enable_fused_rmsnorm_train(model, verbose=verbose, strict=fused_rmsnorm_explicit())
    # Opt-in (E4B_MOE_KEEP_LAYERS=all|n): checkpoint only attention in the last n decoder layers, keeping their MoE activations
    # instead of recomputing the fused MoE forward in backward (engines/moe_keep.py). Pair with NF4_QLORA_COMPACT_DELTA=1.
    from .moe_keep import keep_moe_activations, moe_keep_layers_requested
    keep = moe_keep_layers_requested() if patched else None
    if keep is not None:
        keep_moe_activations(model, keep, verbose=verbose)
    # E4B_CHUNKED_LM_LOSS, `auto` by default (TC1 amendment 44): a training forward whose fp32 logits would reach 1 GiB takes the loss
    # over token chunks, the [tokens, vocab] logits never materialised (engines/chunked_lm_loss.py); smaller ones run stock. `1` or a
    # chunk size chunks every training forward, `0` keeps the stock loss. A model whose logits path the module does not reproduce keeps
    # the stock loss -- with a warning when the variable was set, silently when the default applied.
    from .chunked_lm_loss import (chunked_lm_loss_by_default, chunked_lm_loss_min_bytes, chunked_lm_loss_requested,
                                  enable_chunked_lm_loss)
    chunk = chunked_lm_loss_requested() if patched else None
    if chunk is not None:
        enable_chunked_lm_loss(model, chunk, verbose=verbose, min_logits_bytes=chunked_lm_loss_min_bytes(),
                               quiet_refusal=chunked_lm_loss_by_default())
    # E4B_CKPT_OFFLOAD (engines/ckpt_offload.py): unset = the reentrant checkpoint for every checkpointed decoder layer (TC1
    # amendment 64), 1 = the same with its inputs in pinned host memory, 0 = Hugging Face's checkpoint.
    from .ckpt_offload import (checkpoint_offload_explicit, checkpoint_offload_mode, checkpoint_offload_requested,
                               enable_checkpoint_offload)
    if patched and checkpoint_offload_requested():
        enable_checkpoint_offload(model, verbose=verbose, explicit=checkpoint_offload_explicit(), mode=checkpoint_offload_mode())
    # On by default since P129: each eligible attention module's q/k/v as one fused NF4 + LoRA projection
    # (engines/train_qkv_fuse.py). E4B_TRAIN_FUSE_QKV=0 runs the three projections, op for op as before.
    _maybe_fuse_train_qkv(model, patched, verbose)
    # On by default since TC1 amendment 56 (E4B_ABSMAX_DQ=0 turns it off): the frozen expert absmax double-quantized.
    FAST_TRAIN_STATS["absmax_dq"] = _default_absmax_dq(model, absmax_dq, patched, verbose)
    return patched


def _maybe_fuse_train_qkv(model, patched, verbose=False) -> int:
    """``enable_fast_train``'s hook for P129's fused q/k/v projection: on by default when the fused MoE path is on;
    ``E4B_TRAIN_FUSE_QKV=0`` (or false / off / no) keeps the three projections. Returns the number of attention modules fused."""
    from .train_qkv_fuse import enable_train_fuse_qkv, train_fuse_qkv_requested
    if not (patched and train_fuse_qkv_requested()):
        return 0
    return enable_train_fuse_qkv(model, verbose=verbose)


#: The unset-``E4B_ABSMAX_DQ`` default for ``enable_fast_train`` (TC1 amendment 56). The test suite pins it False (tests/conftest.py) so
#: tests written against the fp32 absmax keep reading it; tests/test_absmax_dq.py sets it back where it reads the default.
ABSMAX_DQ_DEFAULT = True


def absmax_dq_policy(explicit=None):
    """``(compress, required)`` for ``enable_fast_train``: an explicit True / False wins; otherwise ``E4B_ABSMAX_DQ``: ``1``
    required, ``0`` off, unset on -- except under ``OFFLOAD_EXPERTS=1`` or ``TRAIN_ARENA``, whose paths read the fp32 absmax by
    name (the CLI trainer's guards, experts4bit_qlora/train.py)."""
    if explicit is not None:
        return bool(explicit), bool(explicit)
    v = os.environ.get("E4B_ABSMAX_DQ", "").strip()
    if v == "1":
        return True, True
    if v == "0":
        return False, False
    guarded = os.environ.get("OFFLOAD_EXPERTS", "0") == "1" or bool(os.environ.get("TRAIN_ARENA"))
    return ABSMAX_DQ_DEFAULT and not guarded, False


def _default_absmax_dq(model, explicit, patched, verbose):
    """Compress the expert absmax per ``absmax_dq_policy``; returns the record FAST_TRAIN_STATS keeps."""
    compress, required = absmax_dq_policy(explicit)
    if not compress or (not patched and not required):
        return {"compressed": 0, "requested": compress, "required": required,
                "kept_fp32": "off" if not compress else "nothing patched"}
    from experts4bit_qlora.absmax_dq import compress_expert_absmax_
    try:
        n = compress_expert_absmax_(model)
    except ValueError as e:
        if required:
            raise
        if verbose:
            print(f"[e4b.fast] kept the fp32 expert absmax: {e}")
        return {"compressed": 0, "requested": True, "required": False, "kept_fp32": str(e)[:300]}
    if n == 0:
        from experts4bit_qlora.absmax_dq import is_absmax_compressed
        if not any(is_absmax_compressed(m) for m in model.modules()):
            if required:
                raise ValueError("enable_fast_train: E4B_ABSMAX_DQ=1 / absmax_dq=True, but no expert absmax could be compressed")
            return {"compressed": 0, "requested": True, "required": False, "kept_fp32": "no expert stack to compress"}
    if verbose and n:
        print(f"[e4b.fast] expert absmax double-quantized on {n} stack(s) (E4B_ABSMAX_DQ=0 keeps fp32)")
    return {"compressed": n, "requested": True, "required": required, "kept_fp32": None}


def disable_fast_train(model) -> int:
    n = 0
    for mod in model.modules():
        ref = getattr(mod, "_e4b_train_ref", None)
        if ref is not None:
            mod.forward = ref
            del mod._e4b_train_ref
            FAST_TRAIN_STATS["patched"] = max(0, FAST_TRAIN_STATS["patched"] - 1)
            # Leave nothing behind that a later enable would silently inherit.
            if hasattr(mod, "_e4b_dgrad"):
                del mod._e4b_dgrad
            n += 1
    if n:
        from .rope_train import disable_fused_rope
        disable_fused_rope(model)                        # the rotary patch rides enable_fast_train, so it unwinds with it
        from .moe_keep import release_moe_activations
        release_moe_activations(model)                   # ... and so does the attention-only checkpointing
        from .chunked_lm_loss import disable_chunked_lm_loss
        disable_chunked_lm_loss(model)                   # ... and the chunked LM loss
        from .ckpt_offload import disable_checkpoint_offload
        disable_checkpoint_offload(model)                # ... and the host-memory checkpoint inputs
        from .train_qkv_fuse import disable_train_fuse_qkv
        disable_train_fuse_qkv(model)                    # ... and the fused q/k/v projection (its bases stay views of the fused bytes)
    return n
