# Copyright (c) 2026 Cerin Amroth LLC. MIT license (see LICENSE).
"""Glue round 3: the router epilogue as one launch
(``E4B_FUSE_ROUTER_EPI=1``).

After rounds one and two folded the norms, the residual add and the
rotary chain, the census's largest remaining coherent cluster at
decode is what the router does AFTER its GEMM: a softmax over every
expert, a top-k (which torch serves with a gather plus a bitonic
sort), a sum and a divide -- five launches per layer, ~0.43 ms of a
5.69 ms single-stream step.

**This is not the fusion that was refused.** That one folded the
router's GEMM into the same program, so a single CTA pulled the whole
router weight matrix and lost on occupancy. Here the GEMM stays
exactly where it is and only the epilogue moves, so a program reads E
floats -- 512 bytes at E=128. What is left to win is launch count.

Licensing repeats the round-one lesson: structure is checked
attribute by attribute, and the module's OWN forward must agree with
the reference epilogue on a deterministic probe before it is patched.
Routers that select before the softmax, add a bias, or route in groups
share the class-name shape and would be silently mis-routed -- the
probe rejects them. Off decode shapes the original forward runs.

Engagement is census PRESENCE of ``_router_epilogue``.
"""
from __future__ import annotations

import os

from .dense_lt_pin import router_linear

import torch

__all__ = ["fuse_router_epilogue", "CAST_WEIGHTS"]

_MAX_DECODE_ROWS = 64


def _cast_default():
    """``E4B_ROUTER_EPI_CAST`` (e4b#726, lane P70), read once at import into
    :data:`CAST_WEIGHTS`. Unset (or empty) -> ``None``, the per-kind default
    (:func:`_cast_for`); ``"1"`` -> ``True``, cast every kind; ``"0"`` ->
    ``False``, the fp32 weights of every release before the P70 read. It is
    the only way to reproduce the licensed build's function, so it stays until
    #674's question is measured (does the cast default explain the licensed
    K8 gap?); it is then removed with notice in the CHANGELOG (#782). Anything
    else is refused: a typo must not silently pick an arithmetic."""
    v = os.environ.get("E4B_ROUTER_EPI_CAST", "")
    if v == "":
        return None
    if v in ("0", "1"):
        return v == "1"
    raise ValueError(f"E4B_ROUTER_EPI_CAST={v!r}: expected '0', '1' or unset")


#: Whether the fused path rounds its routing weights to the router logits'
#: dtype before returning them, as the upstream router does (e4b#726). One
#: element, read on EVERY fused call, so a harness can flip it per pass
#: without re-patching (hot_residency.DECODE_A16's pattern).
#:
#: Why: the original forward -- which runs above ``_MAX_DECODE_ROWS`` rows --
#: returns ``router_top_value.to(router_logits.dtype)`` (bf16 on a bf16
#: model). Without the cast, a decode or verify step (<= 64 rows) and a
#: prefill weight each expert's output with different functions at the same
#: token (lane P63's P7).
#:
#: ``None`` (the default since lane P70's read): the ``softmax_topk`` kind
#: (Qwen3-MoE, OLMoE) casts; the ``topk_softmax`` kind (gpt-oss,
#: GraniteMoe) keeps fp32 until it is read. P70 read the cast on Qwen3-30B-A3B
#: at B = 1 decode as INDISTINGUISHABLE from the instrument's floor
#: (``e4b.serve.p70.qwen3.b1.router-weight-cast.5090.2026-09-25``). On
#: ``softmax_topk`` the cast is the upstream function: at the same row count,
#: the same experts and each expert's weight bit-equal to upstream's (the
#: RTX 5090 proof, bench/p70/receipts/proof/). The top-k SLOT order can differ
#: from torch.topk's where two probabilities tie within fp32 rounding -- the
#: routing is the same, the slot layout is not. On ``topk_softmax`` the dtype
#: matches but not every bit: upstream takes the k-softmax in the logits'
#: dtype, the kernel in fp32. ``True`` casts both kinds; ``False`` casts
#: neither. Gemma-4's branch casts already and is not affected.
#:
#: Under EVERY setting the fused path casts only a router whose own forward
#: returns its weights in the logits' dtype, read by the probe from the module
#: (``spec["casts"]``), never from a family name. Mixtral's router returns
#: fp32 weights, so its fused path keeps fp32 whatever the setting: a cast
#: there would change upstream's function, not match it (the FAM0 inventory's
#: find, e4b#1368).
CAST_WEIGHTS = [_cast_default()]


def _cast_for(kind: str) -> bool:
    """Whether the fused ``kind`` branch casts on this call, where its router's own forward returns weights in the
    logits' dtype (``spec["casts"]``; a router returning fp32 is never cast)."""
    v = CAST_WEIGHTS[0]
    if v is None:
        return kind == "softmax_topk"
    return bool(v)


def _ref_epilogue(logits: torch.Tensor, k: int, norm: bool):
    """The reference this lane implements: fp32 softmax over ALL
    experts, then top-k, then the optional renormalisation."""
    probs = torch.softmax(logits.float(), dim=-1)
    vals, idx = torch.topk(probs, k, dim=-1)
    if norm:
        vals = vals / vals.sum(dim=-1, keepdim=True)
    return probs, vals, idx


def _ref_topk_softmax(logits: torch.Tensor, k: int):
    """gpt-oss / GraniteMoe: top-k ON THE LOGITS, then a softmax over the
    k selected. A router bias is already in ``logits``: it is added inside
    the GEMM, in the module's dtype (:func:`_topk_softmax_logits`)."""
    x = logits.float()
    top, idx = torch.topk(x, k, dim=-1)
    return x, torch.softmax(top, dim=-1), idx


def _topk_softmax_logits(mod, rows, has_bias):
    """The select-on-logits kind's logits, formed the way the upstream
    router forms them: ``F.linear(rows, weight, bias)``, so the bias is added
    BEFORE the logits round to the module's dtype. Adding it afterwards in
    fp32 is a different function at bf16: gpt-oss-20b's real routers, fed
    4 random bf16 rows, selected a different expert SET in 46 of 1200
    (layer, seed) probes that way, and the probe licensed only 16 of the 24
    layers (found writing #747's tests). Reads the bias live, as it reads the
    weight."""
    return torch.nn.functional.linear(rows, mod.weight, mod.bias if has_bias else None)


def _gemma4_pre(mod, rows):
    """Gemma-4's router input: an unscaled RMSNorm, a learned per-channel
    scale and hidden_size**-0.5 -- module-side, cheap, kept in torch."""
    return mod.norm(rows) * mod.scale * mod.scalar_root_size


def _out_positions(out):
    """(first, weights, index) positions in a router's output tuple. The
    index is the only integer tensor; the weights are the float tensor
    that shares its shape; ``first`` is the remaining slot. GraniteMoe
    returns (index, weights, logits); every other family (first, weights,
    index)."""
    if not isinstance(out, tuple) or len(out) != 3 or not all(torch.is_tensor(t) for t in out):
        return None
    ipos = [i for i, t in enumerate(out) if not t.is_floating_point()]
    if len(ipos) != 1:
        return None
    wpos = [i for i, t in enumerate(out) if i != ipos[0] and tuple(t.shape) == tuple(out[ipos[0]].shape)]
    if len(wpos) != 1:
        return None
    fpos = ({0, 1, 2} - {ipos[0], wpos[0]}).pop()
    return fpos, wpos[0], ipos[0]


def _structural(mod):
    """Which routers this could be, structurally, or None. Returns a list
    of ``(kind, spec)`` candidates in probe order; the module's own forward
    decides among them (attribute presence alone cannot: a module may
    carry ``norm_topk_prob`` and still select on the logits). Kinds: ``softmax_topk`` (Qwen3-MoE / OLMoE / Mixtral: softmax
    over all, top-k, optional renormalise), ``topk_softmax`` (gpt-oss with
    a bias, GraniteMoe without: top-k on the logits, softmax over the k),
    ``gemma4`` (Gemma4TextRouter: norm and scale before the projection,
    softmax-topk-renormalise, a learned per-expert scale after)."""
    name = type(mod).__name__
    if name == "Gemma4TextRouter":
        try:
            k = int(mod.config.top_k_experts)
            w = mod.proj.weight
            e, hidden = int(w.shape[0]), int(w.shape[1])
            pes = mod.per_expert_scale
            _ = mod.norm, mod.scale, float(mod.scalar_root_size)
        except Exception:
            return None
        if getattr(mod.proj, "bias", None) is not None or tuple(pes.shape) != (e,) or not (0 < k <= e):
            return None
        return [("gemma4", {"k": k, "e": e, "hidden": hidden})]
    w = getattr(mod, "weight", None)
    if not torch.is_tensor(w) or w.dim() != 2:
        return None
    e, hidden = int(w.shape[0]), int(w.shape[1])
    try:
        k = int(mod.top_k)
    except Exception:
        return None
    if not (0 < k <= e):
        return None
    cands = []
    try:
        dims_ok = int(mod.num_experts) == e and int(mod.hidden_dim) == hidden
    except Exception:
        dims_ok = False
    if hasattr(mod, "norm_topk_prob"):
        if dims_ok:
            cands.append(("softmax_topk", {"k": k, "e": e, "hidden": hidden, "norm": bool(mod.norm_topk_prob)}))
    elif dims_ok:
        # Mixtral's router (transformers 5.16) is softmax over all, top-k,
        # ALWAYS renormalised, with no ``norm_topk_prob`` attribute to say
        # so. Offer both renormalisation choices; the probe keeps the one
        # the module's own forward computes (the validation lane refused
        # Mixtral with "0 structurally matched" for want of this).
        for norm in (True, False):
            cands.append(("softmax_topk", {"k": k, "e": e, "hidden": hidden, "norm": norm}))
    bias = getattr(mod, "bias", None)
    if bias is None or (torch.is_tensor(bias) and tuple(bias.shape) == (e,)):
        cands.append(("topk_softmax", {"k": k, "e": e, "hidden": hidden, "bias": bias}))
    return cands or None


def _reference_for(mod, kind, spec, x):
    """What the kind's fused path computes, in torch, on the probe input."""
    if kind == "gemma4":
        logits = torch.nn.functional.linear(_gemma4_pre(mod, x), mod.proj.weight)
        probs, vals, idx = _ref_epilogue(logits, spec["k"], True)
        return probs, vals * mod.per_expert_scale.float()[idx], idx
    if kind == "softmax_topk":
        return _ref_epilogue(torch.nn.functional.linear(x, mod.weight), spec["k"], spec["norm"])
    return _ref_topk_softmax(_topk_softmax_logits(mod, x, spec["bias"] is not None), spec["k"])


PROBE_ROWS = 64


def _probe_rows(hidden: int, w: torch.Tensor) -> torch.Tensor:
    """The probe's input: PROBE_ROWS fixed random rows in the weight's dtype and device. 64, not 4: a router must keep
    decisive rows whatever its logits' scale (fam-prove-1 refused 5 of Granite's 32 routers with 4)."""
    g = torch.Generator(device="cpu").manual_seed(4242)
    return torch.randn(PROBE_ROWS, hidden, generator=g).to(w.device, w.dtype)


def _decisive_rows(logits: torch.Tensor, k: int, rounding: torch.dtype | None = None) -> torch.Tensor:
    """Rows whose k-th and (k+1)-th largest selection logits are more than two ulps of ``rounding`` apart (the dtype
    the module rounds its logits to; default the logits' own), relative to the k-th. A row inside that is a near tie:
    the same function, rounded another way, can select the other expert, so it says nothing about which function the
    module computes (#1372's intermittent probe failure). Judged on fp32 reference logits computed on the CPU
    (:func:`_selection_logits_fp32`), the decision does not depend on the card's rounding (fam-prove-1)."""
    s = logits.float()
    if k >= s.shape[-1]:
        return torch.ones(s.shape[0], dtype=torch.bool, device=s.device)
    top = torch.topk(s, k + 1, dim=-1).values
    eps = 2 * torch.finfo(rounding or logits.dtype).eps * top[:, k - 1].abs().clamp(min=1.0)
    return (top[:, k - 1] - top[:, k]) > eps


def _selection_logits_fp32(mod, kind, spec, x) -> torch.Tensor:
    """The kind's selection logits in fp32 on the CPU: the same projection (with the select-on-logits kind's bias, and
    Gemma-4's pre-norm as the module forms it), free of the device GEMM's rounding and of TF32, so which probe rows are
    decisive is a property of the router, not of the card."""
    if kind == "gemma4":
        pre, w, b = _gemma4_pre(mod, x).float().cpu(), mod.proj.weight.float().cpu(), None
    else:
        pre, w = x.float().cpu(), mod.weight.float().cpu()
        b = mod.bias.float().cpu() if kind == "topk_softmax" and spec.get("bias") is not None else None
    return torch.nn.functional.linear(pre, w, b)


def _by_expert(idx: torch.Tensor, w: torch.Tensor):
    """Each row's (expert, weight) pairs ordered by expert: the routing, whatever the slot order."""
    order = torch.argsort(idx, dim=-1)
    return torch.gather(idx, -1, order), torch.gather(w.float(), -1, order)


def _probe_matches(mod, kind, spec) -> bool:
    """Run the module's own forward and require it to agree with the
    kind's reference -- both the selected expert SET and the weights.
    A name match cannot tell a softmax-then-topk router from a
    topk-then-softmax one, and mis-routing is not a rounding error.
    The set and the weights are compared on the DECISIVE rows only
    (:func:`_decisive_rows`, judged on fp32 CPU logits so the decision is
    the router's, not the card's), per expert rather than per slot; a router
    with non-finite logits on the probe, or no decisive row, is refused.
    Records where the module puts (first, weights, index) in its tuple."""
    w = mod.proj.weight if kind == "gemma4" else mod.weight
    x = _probe_rows(spec["hidden"], w)
    try:
        with torch.no_grad():
            out = mod(x)
    except Exception:
        return False
    pos = _out_positions(out)
    if pos is None:
        return False
    got_f, got_w, got_i = out[pos[0]], out[pos[1]], out[pos[2]]
    with torch.no_grad():
        ref_f, ref_w, ref_i = _reference_for(mod, kind, spec, x)
        # "raw" is exactly what the fused path returns as its logits -- for
        # the select-on-logits kind that carries the bias, since it is
        # added inside the GEMM; a module returning the UNbiased projection
        # first is refused rather than handed the biased one.
        if kind == "topk_softmax":
            raw = _topk_softmax_logits(mod, x, spec["bias"] is not None)
        else:
            pre = _gemma4_pre(mod, x) if kind == "gemma4" else x
            raw = torch.nn.functional.linear(pre, w)
    if got_i.shape != ref_i.shape or got_w.shape != ref_w.shape or not torch.isfinite(raw.float()).all():
        return False
    with torch.no_grad():
        keep = _decisive_rows(_selection_logits_fp32(mod, kind, spec, x), spec["k"], rounding=raw.dtype)
    if not bool(keep.any()):
        return False                # every probe row is a near tie: nothing licenses the module
    gi, gw = _by_expert(got_i.cpu()[keep], got_w.cpu()[keep])
    ri, rw = _by_expert(ref_i.cpu()[keep], ref_w.cpu()[keep])
    if not torch.equal(gi, ri):
        return False
    # 2**-8 is bf16's half-ulp: a module that rounds the fp32 k-softmax to
    # bf16 (gpt-oss's softmax in the logits' dtype, GraniteMoe's type_as) sits
    # inside it by construction, once the logits are formed as it forms them.
    if not torch.allclose(gw, rw, rtol=2 ** -8, atol=2 ** -12):
        return False
    # Whether upstream hands its weights back in the logits' dtype (Qwen3-MoE, gpt-oss: bf16 on a bf16 model) or keeps
    # fp32 (Mixtral): the fused path may cast only in the first case, since a cast must reproduce upstream's function.
    spec["casts"] = got_w.dtype == w.dtype
    # The FIRST slot is part of the module's contract too (callers that
    # record router logits read it): it is either the kind's first output
    # (Qwen3-MoE returns the softmax probabilities there; the
    # select-on-logits kinds return the biased logits) or the RAW
    # projection (Mixtral, Gemma-4). Record which, and refuse a module
    # whose first slot is neither -- the fused path would hand it
    # something else (review finding on #370).
    def _same(a, b):
        return (torch.is_tensor(a) and a.shape == b.shape
                and torch.allclose(a.float().cpu(), b.float().cpu(), rtol=2 ** -6, atol=2 ** -8))
    if _same(got_f, ref_f):
        spec["first"] = "ref"
    elif _same(got_f, raw):
        spec["first"] = "raw"
    else:
        return False
    spec["out_pos"] = pos
    return True


def _kernel_supports_select_on_logits(router_epilogue) -> bool:
    import inspect
    try:
        return "select_on_logits" in inspect.signature(router_epilogue).parameters
    except (TypeError, ValueError):
        return False


#: The weights dtypes a ``weights_dtype`` kernel stores (grouped-nf4-gemm#526): the cast the fused forwards ask it for.
_KERNEL_WEIGHT_DTYPES = (torch.float32, torch.bfloat16, torch.float16)


def _kernel_supports_weights_dtype(router_epilogue) -> bool:
    """Whether the kernel stores the routing weights in a caller's dtype (``weights_dtype=``, grouped-nf4-gemm#526):
    its store rounds the fp32 weights to nearest even, bitwise torch's ``.to``, so a forward that casts asks it
    instead of launching the cast (e4b#1313, lane P127's Phase 2, item b1)."""
    import inspect
    try:
        return "weights_dtype" in inspect.signature(router_epilogue).parameters
    except (TypeError, ValueError):
        return False


def fuse_router_epilogue(model, mode: str | None = None, report: dict | None = None) -> int:
    """Patch every structurally-matched, probe-licensed router.

    Returns the count. ``mode`` (:func:`~.glue_fuse.fold_mode`; ``None`` reads ``E4B_FUSE_ROUTER_EPI``): ``1``
    refuses a missing kernel or a vacuous enable; ``auto`` returns 0 there instead and says why in ``report`` (a dict,
    when given)."""
    from .glue_fuse import _note, fold_mode
    mode = fold_mode("E4B_FUSE_ROUTER_EPI", mode)
    _note(report, mode=mode)
    if mode == "0":
        return 0
    try:
        from int4_b32 import router_epilogue
    except ImportError as e:
        if mode == "auto":
            _note(report, skipped=f"no kernel: {e}")
            return 0
        raise RuntimeError(
            "E4B_FUSE_ROUTER_EPI=1 needs the kernel side's "
            "router_epilogue; install the matching cut or unset the flag"
        ) from e
    has_sol = _kernel_supports_select_on_logits(router_epilogue)
    has_wdt = _kernel_supports_weights_dtype(router_epilogue)
    n = 0
    fp32_upstream = 0
    skipped = 0
    no_kernel_mode = 0
    for mod in model.modules():
        if "Router" not in type(mod).__name__:
            continue
        cands = _structural(mod)
        if not cands:
            continue
        chosen = None
        needs_mode = False
        for kind, spec in cands:
            if kind == "topk_softmax" and not has_sol:
                needs_mode = True   # the installed kernel predates select_on_logits
                continue
            if _probe_matches(mod, kind, spec):
                chosen = (kind, spec)
                break
        if chosen is None:
            if needs_mode:
                no_kernel_mode += 1
            else:
                skipped += 1
            continue
        kind, spec = chosen
        orig = mod.forward
        k, hidden, pos = spec["k"], spec["hidden"], spec["out_pos"]

        raw_first = spec["first"] == "raw"
        if kind == "gemma4":
            def _fwd(hidden_states, _m=mod, _orig=orig, _k=k, _h=hidden, _pos=pos, _raw=raw_first):
                rows = hidden_states.reshape(-1, _h)
                if rows.shape[0] > _MAX_DECODE_ROWS:
                    return _orig(hidden_states)
                logits = torch.nn.functional.linear(_gemma4_pre(_m, rows), _m.proj.weight)
                probs, w, idx = router_epilogue(logits, _k, True)                 # the kernel widens on load
                w = w * _m.per_expert_scale.float()[idx]
                return _assemble(_pos, logits if _raw else probs, w.to(hidden_states.dtype), idx)
        elif kind == "softmax_topk":
            def _fwd(hidden_states, _m=mod, _orig=orig, _k=k, _h=hidden, _pos=pos, _norm=spec["norm"], _raw=raw_first,
                     _casts=spec["casts"], _wdt=has_wdt):
                rows = hidden_states.reshape(-1, _h)
                if rows.shape[0] > _MAX_DECODE_ROWS:
                    return _orig(hidden_states)
                logits = router_linear(_m, rows)          # F.linear, or E4B_DENSE_LT_PIN's pinned GEMM at 2..8 rows
                if not (_casts and _cast_for("softmax_topk")):
                    first, w, idx = router_epilogue(logits, _k, _norm)            # the kernel widens on load
                elif _wdt and logits.dtype in _KERNEL_WEIGHT_DTYPES:
                    # the kernel's store rounds to the logits' dtype: bitwise the cast below, one launch fewer
                    first, w, idx = router_epilogue(logits, _k, _norm, weights_dtype=logits.dtype)
                else:
                    first, w, idx = router_epilogue(logits, _k, _norm)
                    w = w.to(logits.dtype)
                return _assemble(_pos, logits if _raw else first, w, idx)
        else:
            def _fwd(hidden_states, _m=mod, _orig=orig, _k=k, _h=hidden, _pos=pos,
                     _has_bias=spec["bias"] is not None, _raw=raw_first, _casts=spec["casts"], _wdt=has_wdt):
                rows = hidden_states.reshape(-1, _h)
                if rows.shape[0] > _MAX_DECODE_ROWS:
                    return _orig(hidden_states)
                logits = _topk_softmax_logits(_m, rows, _has_bias)
                if not (_casts and _cast_for("topk_softmax")):
                    first, w, idx = router_epilogue(logits, _k, False, select_on_logits=True)  # widened on load
                elif _wdt and logits.dtype in _KERNEL_WEIGHT_DTYPES:
                    # the kernel's store rounds to the logits' dtype: bitwise the cast below, one launch fewer
                    first, w, idx = router_epilogue(logits, _k, False, select_on_logits=True, weights_dtype=logits.dtype)
                else:
                    first, w, idx = router_epilogue(logits, _k, False, select_on_logits=True)
                    w = w.to(logits.dtype)
                return _assemble(_pos, logits if _raw else first, w, idx)
        mod.forward = _fwd
        mod._e4b_router_epi_kind = kind               # read by E4B_DENSE_LT_PIN (engines/dense_lt_pin.py)
        n += 1
        # The kernel loads the logits with ``.to(tl.float32)`` (every grouped-nf4-gemm since e4b's floor, 0.30.0), so
        # the forwards above hand it the projection's own dtype: a host ``logits.float()`` was one launch a layer for
        # an exact bf16 -> fp32 widening the kernel does anyway (e4b#1313, lane P127's Phase 1).
        fp32_upstream += kind != "gemma4" and not spec["casts"]
    _note(report, patched=n, failed_probe=skipped, no_kernel_mode=no_kernel_mode, fp32_upstream=fp32_upstream)
    if n == 0 and mode == "1":
        raise RuntimeError(
            f"E4B_FUSE_ROUTER_EPI=1 patched no routers ({skipped} "
            "structurally matched but failed the semantic probe"
            + (f"; {no_kernel_mode} need a grouped-nf4-gemm whose router_epilogue "
               "takes select_on_logits" if no_kernel_mode else "")
            + ") -- refusing a vacuous enable")
    return n


def _assemble(pos, first, w, idx):
    """Return the three outputs in the module's own order."""
    out = [None, None, None]
    out[pos[0]], out[pos[1]], out[pos[2]] = first, w, idx
    return tuple(out)
