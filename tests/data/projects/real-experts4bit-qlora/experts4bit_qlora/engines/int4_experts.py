# Copyright (c) 2026 Cerin Amroth LLC. MIT license (see LICENSE).
"""Opt-in uniform-int4 expert store for serving decode.

Single-stream by default; batched decode also reads this store when
``hot_residency.DEVICE_GROUPING`` is on -- see Scope at the end, which
is written from the dispatch rather than from the design intent.

``enable_serve_experts_int4(model, source_dir)`` repacks every hot
expert stack to the int4-b32 grid **from the source checkpoint** (never
from the resident NF4 bytes: quantising onto an already-quantised grid
measured ~7x the pure grid's ppl cost), installs the stores on each
expert wrapper, and frees the NF4 stacks layer by layer so peak
overhead is one layer's worth. The singleton decode branch then runs
the int4-b32 grouped GEMV -- measured 2.7-3.3x over the NF4 path at the
census cells, with the grid itself at +0.007 ppl over 8,192
teacher-forced tokens.

Fusion layout MUST match the loader's: gate_up is ``cat(gate, up)``
along the intermediate axis, **gate first** (moe_conventions.fuse_experts).
The parity test pins one repacked expert against the source weights.

Scope, by dispatch rather than by intent (#496). Two branches in
``hot_residency._fused_over_stack`` read this store, and which one runs
is decided by ``hot_residency.DEVICE_GROUPING``:

* ``T == 1`` -- the int4-b32 grouped GEMV described above.
* ``T > 1`` **with DEVICE_GROUPING on** -- the grouped captured
  int4-b32 GEMM against the same prebuilt device tiles the NF4 captured
  path uses (``hot_residency.py`` ~line 330), or, when
  ``x_rows <= 256``, grouped-nf4-gemm's K19 over those tiles when the
  kernel package carries it (``E4B_INT4_GROUPED_SMALLM`` unset/``auto``;
  lane P88 licensed it, ``e4b.serve.p88.qwen3.int4.k19-b16.5090.2026-10-01``)
  and the split-K GEMV otherwise or under ``=0``. So batched decode does
  NOT keep the NF4 M-tile path in that configuration.
* ``T > 1`` with DEVICE_GROUPING off -- the library default,
  ``DEVICE_GROUPING = [False]``, so every prefill chunk of a
  ``max_seqs == 1`` server. These calls do NOT take the NF4 grouped
  path: the int4 branches come first in the dispatch (and the NF4 stacks
  are freed by default). They take the host-grouped int4 branch, whose
  route ``E4B_INT4_PREFILL`` picks (e4b#916,
  ``hot_residency._int4_prefill_mode_env``):
  - ``auto`` (the default since lane P102): ``k19`` where K19 can run,
    else ``loop``. P102 (#931) read TTFT-4096 7.21 s -> 1.37 s on an RTX
    5090 with the prefill-shaped NLL within +0.011 / +0.007 ppl;
  - ``loop``: one ``dequant_int4_ref`` per routed expert per projection,
    then a bf16 matmul. It is paid on every call, i.e. per prefill chunk
    per layer, not once per request (lane P100);
  - ``batched``: the same weights decoded in slices, bit-identical;
  - ``k19``: device grouping served by K19 at every row count -- the
    loop's operands (bf16 activations, bf16 weights), within one bf16
    ulp per output row;
  - ``mtile``: device grouping served by the grouped captured int4-b32
    M-tile GEMM above, int8 activations.

  Inside the package exactly one place assigns DEVICE_GROUPING:
  ``serve_paged._batched_graph_grouping``, which turns it on when the
  server captures decode graphs with ``max_seqs > 1`` (the harness's
  batched lane does the same before it captures). Every other library
  path keeps the default.

The flag is set by ``bench/hybrid-g9/step_decomp.py`` and by
``tests/test_s2_verify_mechanics.py``, which is the configuration the
register's ``e4b.serve.b16.qwen3-30b.int4.5090`` row was measured in --
1,238 tok/s aggregate, x2.50 over the NF4 batched baseline.

An earlier version of this note asserted the opposite: that batched
decode stayed on the NF4 M-tile path, full stop. That contradicted the
published claim above -- the module implementing the path said the path
does not run. The mean-group-1.6+ argument it cited is a reason to
DEFAULT to NF4, not a description of what dispatch does once the flag
is on. ``tests/test_int4_docstring_matches_dispatch.py`` now fails if
this note and the dispatch drift apart in either direction.
"""
from __future__ import annotations

import json
import os
import re



def safetensors_reader(source_dir: str):
    """``read_tensor`` over a safetensors snapshot: (keys, reader)."""
    from safetensors import safe_open

    idx = os.path.join(source_dir, "model.safetensors.index.json")
    if os.path.exists(idx):
        with open(idx) as f:
            wmap = json.load(f)["weight_map"]
    elif os.path.exists(os.path.join(source_dir, "model.safetensors")):
        with safe_open(os.path.join(source_dir, "model.safetensors"),
                       framework="pt") as f:
            wmap = {k: "model.safetensors" for k in f.keys()}
    else:
        raise FileNotFoundError(f"no safetensors under {source_dir}")

    def read_tensor(key):
        with safe_open(os.path.join(source_dir, wmap[key]),
                       framework="pt") as f:
            return f.get_tensor(key)
    return list(wmap.keys()), read_tensor


def _wrapper_for(model, param_name: str):
    """The hot-residency state owning ``param_name``.

    Resolves the fused target's parent module (the experts module in the
    plan's tree), searches it and its descendants, then walks up toward
    the root. Plan names are rooted at the causal-LM tree; when ``model``
    is the bare decoder the leading component is stripped and retried.
    """
    for name in (param_name, param_name.split(".", 1)[-1]):
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            try:
                mod = model.get_submodule(".".join(parts[:cut]))
            except AttributeError:
                continue
            search = mod.modules() if cut == len(parts) - 1 else (mod,)
            for m in search:
                st = getattr(m, "_hot_residency", None)
                if st is not None and hasattr(st, "h_gu_p"):
                    return st
    return None


def _top_k(model):
    """Routed experts per token, from the config (text tower for
    composites). The split-K partial buffer is sized ``sk * R * N`` and
    the kernel reshapes it EXACTLY, so a wrong R is a loud crash at the
    first decode step -- a top-8 constant sized it for two lucky
    families and broke the first top-4 one (Qwen1.5-MoE, K8 campaign).
    """
    from ..arch.topology import routed_top_k

    v = routed_top_k(getattr(model, "config", None))
    if v is not None:
        return v
    raise RuntimeError(
        "enable_serve_experts_int4: cannot read routed-experts-per-token "
        "from the config; the split-K buffer cannot be sized safely")


_FUSED_TARGET = re.compile(
    r"^(?P<pfx>.*\.layers\.(?P<layer>\d+)\..*experts)\."
    r"(?P<role>gate_up_proj|down_proj)$")


def _prefused_layers(plan):
    """``{layer: (gate_up_key, down_key)}`` for PRE-FUSED families.

    Granite/Gemma-4/Qwen3-VL ship one stacked tensor per projection, so
    the planner routes them through ``passthrough`` and ``plan.experts``
    is EMPTY -- the per-expert fusion helper has nothing to fuse. Their
    stacks are already in the module's layout (any axis swap is recorded
    in ``plan.transforms`` and applied by the reader), so the int4 lane
    can pack them directly instead of refusing the family.
    """
    out = {}
    for ckpt_key, target in plan.passthrough.items():
        m = _FUSED_TARGET.match(target)
        if not m:
            continue
        layer = int(m.group("layer"))
        gu, dn = out.get(layer, (None, None))
        if m.group("role") == "gate_up_proj":
            gu = ckpt_key
        else:
            dn = ckpt_key
        out[layer] = (gu, dn)
    return {k: v for k, v in out.items() if v[0] and v[1]}


def _mxfp4_store_layout(gu_blocks, gu_scales, dn_blocks, dn_scales):
    """gpt-oss's released MXFP4 stacks, kept as released: ``gate_up_proj_blocks
    [E, 2I, H//32, 16]`` (fp4 nibble pairs, gate/up rows INTERLEAVED) with
    ``gate_up_proj_scales [E, 2I, H//32]`` (e8m0), and ``down_proj_blocks
    [E, H, I//32, 16]`` / ``[E, H, I//32]``. The kernel side's grouped MXFP4
    GEMM takes ``blocks [E, N, K//2]`` + ``scales [E, N, K//32]`` in exactly
    this orientation, so the only transform is the ROW de-interleave of the
    gate/up stack (gate block first, as the serve epilogue's ``chunk(2)``
    and the loader builder expect) and a flatten of the group axis. No
    value is re-quantised: the int4-b32 re-quantisation of these weights
    measured +0.626 nats (P30) because the uniform grid cannot hold e2m1
    levels; NF4's can, and this path holds them exactly."""
    import torch as _torch

    def _u8(t):
        return t if t.dtype == _torch.uint8 else t.view(_torch.uint8)
    gu_blocks, gu_scales = _u8(gu_blocks), _u8(gu_scales)
    dn_blocks, dn_scales = _u8(dn_blocks), _u8(dn_scales)
    if gu_blocks.ndim != 4 or dn_blocks.ndim != 4 or gu_blocks.shape[-1] != 16:
        raise RuntimeError("gpt_oss: expected MXFP4 blocks [E, rows, K//32, 16], got "
                           f"{tuple(gu_blocks.shape)} / {tuple(dn_blocks.shape)}")
    E, twoI, gH, _ = gu_blocks.shape
    E2, H, gI, _ = dn_blocks.shape
    if (twoI % 2 or E2 != E or tuple(gu_scales.shape) != (E, twoI, gH)
            or tuple(dn_scales.shape) != (E, H, gI) or gH * 32 != H or gI * 32 != twoI // 2):
        raise RuntimeError(
            "gpt_oss: MXFP4 stacks disagree with [E, 2I, H//32, 16] / [E, H, I//32, 16]: "
            f"blocks {tuple(gu_blocks.shape)} / {tuple(dn_blocks.shape)}, scales "
            f"{tuple(gu_scales.shape)} / {tuple(dn_scales.shape)}")
    gub = _torch.cat([gu_blocks[:, 0::2], gu_blocks[:, 1::2]], dim=1)   # de-interleave rows
    gus = _torch.cat([gu_scales[:, 0::2], gu_scales[:, 1::2]], dim=1)
    return (gub.reshape(E, twoI, gH * 16).contiguous(), gus.contiguous(),
            dn_blocks.reshape(E, H, gI * 16).contiguous(), dn_scales.contiguous())


def _gptoss_packer_layout(gate_up, down):
    """gpt-oss's dense stacks leave the plan reader in the MODULE layout:
    ``gate_up [E, H, 2I]`` input-major with the gate and up rows
    INTERLEAVED (``[..., ::2]`` gate, ``[..., 1::2]`` up), ``down
    [E, I, H]``. The packer wants ``[E, N, K]`` with the gate block
    before the up block (the serve epilogue splits with ``chunk(2)``).
    This is the loader builder's transform (``arch/gptoss.py``,
    ``from_gptoss``) line for line, so the int4 bytes pair gate rows
    with the wrapper's de-interleaved gate biases."""
    import torch as _torch

    if gate_up.ndim != 3 or down.ndim != 3:
        raise RuntimeError("gpt_oss: expected [E, *, *] expert stacks, got "
                           f"{tuple(gate_up.shape)} / {tuple(down.shape)}")
    E, H, twoI = gate_up.shape
    if twoI % 2 or tuple(down.shape) != (E, twoI // 2, H):
        raise RuntimeError(
            "gpt_oss: stacks disagree with the module layout [E, H, 2I] / "
            f"[E, I, H]: gate_up {tuple(gate_up.shape)}, down "
            f"{tuple(down.shape)}")
    gu = gate_up.transpose(1, 2).contiguous()                 # [E, 2I, H]
    gu = _torch.cat([gu[:, 0::2, :], gu[:, 1::2, :]], dim=1)  # de-interleave rows
    return gu, down.transpose(1, 2).contiguous()              # [E, H, I]


def _check_gptoss_wrapper(w, layer, first, down):
    """The int4 bytes are served by the hot-residency forward, whose
    gpt-oss epilogue (biases, clamped GLU) engages only on a wrapper the
    loader built as gpt-oss. A wrapper without that flag would serve the
    bytes through the plain SwiGLU -- shapes fine, model wrong."""
    gub = getattr(w, "h_gu_b", None)
    dnb = getattr(w, "h_dn_b", None)
    if not getattr(w, "gptoss", False) or gub is None or dnb is None:
        raise RuntimeError(
            f"layer {layer}: the hot-residency wrapper is not gpt-oss "
            "flagged (no bias epilogue); the int4 bytes would be served "
            "through a plain SwiGLU -- refusing")
    if gub.shape[-1] != first.shape[1] or dnb.shape[-1] != down.shape[1]:
        raise RuntimeError(
            f"layer {layer}: gpt-oss bias widths {tuple(gub.shape)} / "
            f"{tuple(dnb.shape)} do not match the packed stacks "
            f"{tuple(first.shape)} / {tuple(down.shape)}")


def _meta_twin(model):
    """A plannable twin of the live model on ``meta``.

    The live tree can never validate a plan -- its expert modules are
    residency wrappers, so the checkpoint's expert keys are unclaimable
    and the wrapper buffers would be unclaimed. Rebuild the SAME
    architecture fresh from config instead: constructing the live
    model's own class keeps composite trees (a vision-language wrapper
    whose text decoder lives under a prefix) shaped exactly as the
    checkpoint's keys expect. The causal-LM auto class is only the
    fallback for objects that cannot be rebuilt from their config.
    """
    import torch as _torch

    with _torch.device("meta"):
        try:
            return model.__class__(model.config)
        except Exception:
            from transformers import AutoModelForCausalLM
            return AutoModelForCausalLM.from_config(model.config)


class _ExpertHessianSink:
    """Per-(layer, expert) ``2 X X^T`` accumulators fed by the fused
    forward's calibration tap. Layers are recognised by the identity of
    their hot NF4 gate/up stack (``w.h_gu_p``), which is what the fused
    forward is handed; ``layers`` restricts a pass to a subset so the
    running Hessians fit ``hessian_device`` (a 128-expert layer at hidden
    2048 / inter 768 is 2.4 GB in fp32).

    ``means=True`` also keeps each expert's first moment -- the fp64 sum
    of the gate/up input rows and of the down input rows it saw, on the
    CPU (two vectors per expert, a few KB). The Hessians are uncentred
    (``2 X X^T``), so a statistic that needs per-channel means (the
    activation-entropy ratio of bench/p65) cannot be read from them
    alone. Off by default; the Hessians are the same tensors either way."""

    def __init__(self, layer_of: dict, layers, hessian_device="cpu", means=False):
        self.layer_of = layer_of            # id(h_gu_p) -> layer index
        self.layers = set(layers)
        self.hessian_device = hessian_device
        self.gu = {}                        # (layer, e) -> HessianAccumulator
        self.dn = {}
        self.rows = {}                      # (layer, e) -> rows seen
        self.sums = {} if means else None   # (layer, e) -> [sum x (fp64, cpu), sum h (fp64, cpu)]
        self.unmatched = 0

    def __call__(self, gu_p, sorted_ids, x_sorted, h):
        from gptq_pack import HessianAccumulator
        layer = self.layer_of.get(id(gu_p))
        if layer is None:
            self.unmatched += 1
            return
        if layer not in self.layers:
            return
        import torch
        ids = sorted_ids.to("cpu")
        for e in torch.unique(ids).tolist():
            m = (ids == e)
            idx = m.nonzero().flatten().to(x_sorted.device)
            key = (layer, int(e))
            if key not in self.gu:
                self.gu[key] = HessianAccumulator(x_sorted.shape[-1], device=self.hessian_device)
                self.dn[key] = HessianAccumulator(h.shape[-1], device=self.hessian_device)
                self.rows[key] = 0
            xe = x_sorted.index_select(0, idx)
            he = h.index_select(0, idx)
            self.gu[key].add(xe)
            self.dn[key].add(he)
            self.rows[key] += int(idx.numel())
            if self.sums is not None:
                s = self.sums.get(key)
                sx = xe.reshape(-1, xe.shape[-1]).to(torch.float64).sum(0).cpu()
                sh = he.reshape(-1, he.shape[-1]).to(torch.float64).sum(0).cpu()
                if s is None:
                    self.sums[key] = [sx, sh]
                else:
                    s[0] += sx
                    s[1] += sh

    def hessians(self):
        out = {}
        for (layer, e), acc in self.gu.items():
            out.setdefault(layer, {})[e] = (acc.H, self.dn[(layer, e)].H, self.rows[(layer, e)])
        return out

    def means(self):
        """``{layer: {expert: (mean_x, mean_h)}}`` (fp64, CPU) over the rows each
        expert saw; only when the sink was built with ``means=True``."""
        if self.sums is None:
            raise RuntimeError("_ExpertHessianSink: built without means=True")
        out = {}
        for (layer, e), (sx, sh) in self.sums.items():
            n = self.rows[(layer, e)]
            out.setdefault(layer, {})[e] = (sx / n, sh / n)
        return out


def _expert_layers(model, source_dir, model_type=None, plan_model=None):
    """(plan, [(layer, wrapper state)]) -- the enabler's own enumeration,
    shared with calibration so both see the same layers in the same order."""
    import torch as _torch

    from ..arch.moe_plan import plan_moe_checkpoint
    keys, _read_tensor = safetensors_reader(source_dir)
    mt = model_type or getattr(getattr(model, "config", None), "model_type", None)
    if not mt:
        raise RuntimeError("model_type unknown; pass model_type= explicitly")
    if plan_model is None:
        plan_model = _meta_twin(model)
    plan = plan_moe_checkpoint(keys, plan_model, mt, skip_extra_layers=True)
    prefused = _prefused_layers(plan) if not plan.experts else {}
    out = []
    for layer in (plan.experts or prefused):
        if plan.experts:
            first_name, _down_name = plan.expert_targets[layer]
        else:
            first_name = plan.passthrough[prefused[layer][0]]
        w = _wrapper_for(model, first_name)
        if w is None:
            raise RuntimeError(f"layer {layer}: no hot-residency state near {first_name}")
        out.append((layer, w))
    del _torch
    return plan, out


def calibrate_expert_hessians(model, source_dir: str, batches, *,
                              model_type: str | None = None,
                              plan_model=None, device=None,
                              hessian_device="cpu",
                              max_hessian_bytes: int = 24 << 30,
                              layers_per_pass: int | None = None,
                              only_layers=None,
                              activation_means: dict | None = None) -> dict:
    """Run ``batches`` (token-id tensors ``[B, T]``) through ``model`` on
    its NF4 expert stacks and return ``{layer: {expert: (H_gu, H_dn,
    rows)}}`` with ``H = 2 X X^T`` over the rows each expert actually
    saw -- the gate/up input for ``H_gu`` and the down-projection input
    (post-activation) for ``H_dn``, both taken at the fused forward's
    calibration tap. Must run BEFORE ``enable_serve_experts_int4``: the
    tap keys layers by their live NF4 stack.

    Memory is the constraint, not time: a 128-expert layer's fp32
    Hessians are ~2.4 GB, so the layers are calibrated in passes sized
    by ``max_hessian_bytes`` (or ``layers_per_pass``), each pass a full
    run over ``batches``.

    ``activation_means``, when a dict is passed, is filled in place with
    ``{layer: {expert: (mean_x, mean_h)}}`` -- each expert's fp64 mean
    gate/up input and down input over the same rows, from the same tap
    (the Hessians alone are uncentred). The return value and the
    Hessians do not change; ``None`` (the default) keeps no sums."""
    from . import hot_residency as _hr
    _plan, layers = _expert_layers(model, source_dir, model_type, plan_model)
    if not layers:
        raise RuntimeError("calibrate_expert_hessians: no expert layers")
    layer_of = {id(w.h_gu_p): layer for layer, w in layers}
    if len(layer_of) != len(layers):
        raise RuntimeError("calibrate_expert_hessians: expert stacks are not "
                           "distinct objects (freed?) -- calibrate before the int4 enable")
    cfg = getattr(model, "config", None)
    if layers_per_pass is None:
        hid = getattr(cfg, "hidden_size", None)
        inter = (getattr(cfg, "moe_intermediate_size", None)
                 or getattr(cfg, "intermediate_size", None))
        n_exp = (getattr(cfg, "num_local_experts", None)
                 or getattr(cfg, "num_experts", None))
        if hid and inter and n_exp:
            per_layer = int(n_exp) * (int(hid) ** 2 + int(inter) ** 2) * 4
            layers_per_pass = max(1, int(max_hessian_bytes // per_layer))
        else:
            layers_per_pass = len(layers)
    import torch
    batches = list(batches)
    dev = device or next(model.parameters()).device
    order = [layer for layer, _w in layers]
    if only_layers is not None:
        keep = set(only_layers)
        order = [layer for layer in order if layer in keep]
    result = {}
    prev = _hr._CALIB_SINK
    try:
        for i in range(0, len(order), layers_per_pass):
            chunk = order[i:i + layers_per_pass]
            sink = _ExpertHessianSink(layer_of, chunk, hessian_device,
                                      means=activation_means is not None)
            _hr._CALIB_SINK = sink
            with torch.no_grad():
                for ids in batches:
                    model(ids.to(dev))
            if not sink.gu:
                raise RuntimeError(
                    f"calibrate_expert_hessians: the tap saw no expert rows for layers "
                    f"{chunk[:4]}... (unmatched calls: {sink.unmatched}) -- is the model "
                    "on the fused NF4 path (all-VRAM hot residency)?")
            result.update(sink.hessians())
            if activation_means is not None:
                activation_means.update(sink.means())
    finally:
        _hr._CALIB_SINK = prev
    return result


def enable_serve_experts_int4(model, source_dir: str, *,
                              model_type: str | None = None,
                              plan_model=None,
                              expert_hessians: dict | None = None,
                              min_rows: int = 32,
                              layers=None,
                              assignment=None) -> int:
    """Repack + install for EVERY family the load plan understands.

    Routes the source read through the same machinery the loader uses --
    ``plan_moe_checkpoint`` (per-family keymaps), ``make_plan_reader``
    (dequantizes FP8/GPTQ/AWQ/NVFP4/MXFP4 sources), and
    ``read_fused_expert_layer`` (gate-first fusion, or non-gated
    stacking) -- so the int4 stacks are byte-consistent with what the
    NF4 loader would have produced from the same checkpoint, for every
    model in the coverage matrix. Never reads resident NF4 (composition
    measured ~7x the pure grid's ppl cost). Collapsed-path-only, as
    before: refuses tiered layers loudly.

    ``expert_hessians`` (from :func:`calibrate_expert_hessians`) switches
    the packer to the kernel side's GPTQ-style ``gptq_pack_int4_b32`` per
    expert, with each expert's own gate/up and down Hessians. An expert
    the calibration text never routed to (fewer than ``min_rows`` rows)
    is packed round-to-nearest and COUNTED; the store records
    ``calibrated=(n_gptq, n_rtn)`` so a lane can refuse a mostly-RTN pack
    under the calibrated banner.

    ``assignment`` (#530) is a RECORDED gptq/rtn decision -- the
    ``method_map`` rows of a licensed pack (``pack_manifest.read_assignment``
    or the list itself). When given, ``min_rows`` is NOT consulted: each
    (layer, expert, role) is packed the way the record says. ``rows >=
    min_rows`` is a threshold on routed-row counts, which sit at the
    router-flip noise floor, so re-deriving it on another box flips
    experts near 32 (P37: 10 of 12,288). Honouring the record makes the
    CLASSIFICATION reproducible; it does not make the bytes reproducible
    -- GPTQ output also depends on the Hessian, which routing perturbs --
    so the licensed bytes still come only from the artifact. Refusals,
    never silent fallbacks: an expert the record names ``gptq`` that this
    box's calibration never routed to (no Hessian) refuses; an expert the
    record does not name refuses. Where the record disagrees with what
    ``min_rows`` would have picked here, that is COUNTED and reported as
    an observation, never acted on.

    The first of those refusals is a PRECONDITION on where a record can
    travel, not an incidental error. A record is honourable only on a box
    whose calibration routed to at least the experts the record calls
    ``gptq``: honouring fixes a classification, it cannot conjure a
    Hessian that was never computed. A calibration thinner than the one
    that produced the record generally violates this -- P39 box 3 ran a
    32-sequence calibration against a 128-sequence record and refused at
    layer 13 expert 60, an expert 32 sequences never route to. The record
    does not name the calibration that produced it, but its ``row_counts``
    carry that box's per-expert coverage, so a reader can see what the
    record's routing had and a caller can pick a calibration that meets
    it. Nothing checks this before packing: the coverage a local run will
    have is not known until it has calibrated, so the precondition is
    enforced where it becomes knowable, as the refusal above.
    """
    import torch as _torch

    from int4_b32 import _plan
    from int4_pack_ref import pack_int4_b32

    from .host_heap import release_freed_host_heap
    from .pack_manifest import assignment_index, method_map_hash

    assign_idx = None
    assign_hash = None
    if assignment is not None:
        if expert_hessians is None:
            raise RuntimeError("enable_serve_experts_int4: assignment given without "
                               "expert_hessians -- an RTN-only enable has no decision to honour")
        rows_mm = assignment["method_map"] if isinstance(assignment, dict) else assignment
        assign_idx = assignment_index(rows_mm)
        assign_hash = method_map_hash(rows_mm)
    disagreements = 0

    from ..arch.moe_load import make_plan_reader, read_fused_expert_layer
    from ..arch.moe_plan import plan_moe_checkpoint

    keys, read_tensor = safetensors_reader(source_dir)
    mt = model_type or getattr(getattr(model, "config", None),
                               "model_type", None)
    if not mt:
        raise RuntimeError("enable_serve_experts_int4: model_type unknown; "
                           "pass model_type= explicitly")
    if plan_model is None:
        plan_model = _meta_twin(model)
    plan = plan_moe_checkpoint(keys, plan_model, mt, skip_extra_layers=True)
    # Same conditional transpose the loader applies: the meta twin knows every
    # parameter's declared shape, which is what upstream's Transpose(check_dims=True)
    # compares against. Without it a square pre-fused stack would be refused here
    # while loading fine through execute_moe_plan (e4b#637).
    def _plan_param_shape(name):
        try:
            return plan_model.get_parameter(name).shape
        except (AttributeError, KeyError, ValueError):
            return None

    read = make_plan_reader(plan, read_tensor, _torch.float32,
                            param_shape=_plan_param_shape)
    keep_nf4 = os.environ.get("E4B_INT4_KEEP_NF4", "0") == "1"

    prefused = _prefused_layers(plan) if not plan.experts else {}
    # gpt-oss's stacks are MXFP4 with INTERLEAVED gate/up rows and a
    # bias-carrying epilogue. They are served NATIVELY -- the released fp4
    # blocks and e8m0 scales, row-de-interleaved, through the kernel side's
    # grouped MXFP4 GEMM -- never re-quantised onto the int4-b32 grid (that
    # measured +0.626 nats, P30: a uniform grid cannot hold e2m1 levels).
    # The biases and the clamped GLU are applied by the serve forward's
    # gpt-oss epilogue, which runs after whichever GEMM branch served the
    # store.
    gptoss = bool(prefused) and mt == "gpt_oss"

    n_layers = 0
    tot_gptq = tot_rtn = 0
    method_map = []
    row_counts = {}
    installed = []
    only = set(layers) if layers is not None else None
    for layer in (plan.experts or prefused):
        if only is not None and layer not in only:
            continue
        if plan.experts:
            first_name, _down_name = plan.expert_targets[layer]
        else:
            first_name = plan.passthrough[prefused[layer][0]]
        w = _wrapper_for(model, first_name)
        if w is None:
            raise RuntimeError(
                f"layer {layer}: no hot-residency state near {first_name} "
                "-- enable hot residency (all-VRAM) before the int4 lane")
        if not w._all_hot():
            raise RuntimeError(
                f"layer {layer} is tiered; this lane is the all-VRAM "
                "collapsed path -- use placement-override all-vram")
        if plan.experts:
            first, down = read_fused_expert_layer(plan, layer, read,
                                                  device="cpu",
                                                  dtype=_torch.float32)
        else:
            gu_key, dn_key = prefused[layer]
            if gptoss:
                # native MXFP4: the released blocks and scales, never the
                # dequantised stacks (see _mxfp4_store_layout)
                gkind, gblk, gsc, _x = plan.scales[gu_key]
                dkind, dblk, dsc, _x = plan.scales[dn_key]
                if gkind != "mxfp4" or dkind != "mxfp4":
                    raise RuntimeError(f"layer {layer}: gpt_oss stacks are not MXFP4 "
                                       f"in this checkpoint ({gkind}/{dkind})")
                gub, gus, dnb, dns = _mxfp4_store_layout(
                    read_tensor(gblk), read_tensor(gsc), read_tensor(dblk), read_tensor(dsc))
                dev = w.h_gu_p.device
                Ngu, Kgu = gub.shape[1], gub.shape[2] * 2
                Ndn, Kdn = dnb.shape[1], dnb.shape[2] * 2
                _check_gptoss_wrapper(w, layer, gub, dnb)
                w._int4_stores = {
                    "kind": "mxfp4",
                    "gu": {"blocks": gub.to(dev), "scales": gus.to(dev), "N": Ngu, "K": Kgu},
                    "dn": {"blocks": dnb.to(dev), "scales": dns.to(dev), "N": Ndn, "K": Kdn},
                }
                if not keep_nf4:
                    for attr in ("h_gu_p", "h_gu_a", "h_dn_p", "h_dn_a"):
                        t = getattr(w, attr)
                        setattr(w, attr, t.new_empty((0,) * t.dim()))
                    _torch.cuda.empty_cache()
                n_layers += 1
                continue
            first = read(gu_key).to(_torch.float32)
            down = read(dn_key).to(_torch.float32)
        dev = w.h_gu_p.device
        E = first.shape[0]

        hl = (expert_hessians or {}).get(layer)
        if expert_hessians is not None and hl is None:
            raise RuntimeError(f"layer {layer}: calibrated enable but no expert "
                               "Hessians for this layer -- refusing to pack it "
                               "round-to-nearest under the calibrated banner")
        n_gptq = n_rtn = 0

        def _pack_stack(stack, role, E=E, dev=dev):
            nonlocal n_gptq, n_rtn, disagreements
            pk, sc = [], []
            for e in range(E):
                H = None
                routed = hl is not None and e in hl
                would_gptq = routed and hl[e][2] >= min_rows      # the min_rows rule's own pick
                if assign_idx is not None:
                    key = (int(layer), int(e), role)
                    want = assign_idx.get(key)
                    if want is None:
                        raise RuntimeError(
                            f"layer {layer} expert {e} {role}: not named by the assignment "
                            "-- refusing to re-derive a decision the record was meant to fix")
                    if want == "gptq":
                        if not routed:
                            raise RuntimeError(
                                f"layer {layer} expert {e} {role}: the assignment says gptq but "
                                "this box's calibration never routed to it (no Hessian) -- "
                                "refusing; a silent RTN here would not be the licensed pack")
                        H = hl[e][0] if role == "gu" else hl[e][1]
                    if (want == "gptq") != bool(would_gptq):
                        disagreements += 1
                elif would_gptq:
                    H_gu, H_dn, _rows = hl[e]
                    H = H_gu if role == "gu" else H_dn
                if H is not None:
                    from gptq_pack import gptq_pack_int4_b32
                    # E4B_INT4_GPTQ_DEVICE=cuda solves on the GPU: a 14336^2
                    # Hessian (Mixtral's down projection) takes ~0.5 s there
                    # and tens of seconds on the CPU, x256 experts. The pack
                    # is the same arithmetic either way; an OOM falls back.
                    gdev = os.environ.get("E4B_INT4_GPTQ_DEVICE", "cpu")
                    # E4B_INT4_GPTQ_DAMP scales the Hessian's diagonal damping
                    # (kernel default 0.01): a thin calibration set leaves an
                    # expert's Hessian rank-deficient, and more damping is the
                    # standard response before adding data.
                    damp = float(os.environ.get("E4B_INT4_GPTQ_DAMP", "0.01"))
                    try:
                        p, c = gptq_pack_int4_b32(stack[e].to(gdev), H.to(gdev), damp=damp)
                    except RuntimeError:
                        if gdev == "cpu":
                            raise
                        _torch.cuda.empty_cache()
                        p, c = gptq_pack_int4_b32(stack[e], H.to("cpu"), damp=damp)
                    # back to the stack's device: the RTN-packed experts of the
                    # same layer stay where the stack lives, and they are stacked together
                    p, c = p.to(stack.device), c.to(stack.device)
                    n_gptq += 1
                    method = "gptq"
                else:
                    p, c = pack_int4_b32(stack[e])
                    n_rtn += 1
                    method = "rtn"
                if expert_hessians is not None:
                    method_map.append({"layer": layer, "expert": e,
                                       "role": role, "method": method})
                    if role == "gu" and hl is not None and e in hl:
                        row_counts[(layer, e)] = int(hl[e][2])
                pk.append(p)
                sc.append(c)
            return (_torch.stack(pk).to(dev).contiguous(),
                    _torch.stack(sc).to(dev).contiguous())

        gu_p, gu_s = _pack_stack(first, "gu")
        dn_p, dn_s = _pack_stack(down, "dn")
        Ngu, Kgu = first.shape[1], first.shape[2]
        Ndn, Kdn = down.shape[1], down.shape[2]
        _b, _w2, sk_gu, _k = _plan(Ngu, Kgu)
        _b, _w2, sk_dn, _k = _plan(Ndn, Kdn)
        R = _top_k(model)
        w._int4_stores = {
            "gu": {"packed": gu_p, "scales": gu_s, "N": Ngu, "K": Kgu,
                   "part": _torch.empty(sk_gu * R, Ngu,
                                        dtype=_torch.float32, device=dev)},
            "dn": {"packed": dn_p, "scales": dn_s, "N": Ndn, "K": Kdn,
                   "part": _torch.empty(sk_dn * R, Ndn,
                                        dtype=_torch.float32, device=dev)},
        }
        if not keep_nf4:
            for attr in ("h_gu_p", "h_gu_a", "h_dn_p", "h_dn_a"):
                t = getattr(w, attr)
                setattr(w, attr, t.new_empty((0,) * t.dim()))
            _torch.cuda.empty_cache()
        if expert_hessians is not None:
            w._int4_stores["calibrated"] = (n_gptq, n_rtn)
        installed.append((layer, w))
        n_layers += 1
        tot_gptq += n_gptq
        tot_rtn += n_rtn
        # This layer's fp32 stacks are packed and installed: drop them before the next layer's read (bound, they would
        # sit beside it), and hand the freed host heap back (engines.host_heap: glibc keeps it otherwise).
        first = down = None
        release_freed_host_heap()
    if n_layers == 0:
        raise RuntimeError("enable_serve_experts_int4: the plan holds "
                           "neither per-expert stacks nor pre-fused expert "
                           "tensors -- refusing a vacuous enable")
    if expert_hessians is not None:
        print(f"INT4EXP calibrated experts: {tot_gptq} gptq / {tot_rtn} rtn "
              f"(min_rows={min_rows}) over {n_layers} layers", flush=True)
        if assign_hash is not None:
            # the engagement banner a lane asserts on: which decision was honoured, and how
            # far this box's own routing would have strayed from it
            print(f"INT4EXP assignment honoured {assign_hash}: {disagreements} expert-roles "
                  f"where local routing disagrees with the record (observed, not applied)",
                  flush=True)
        _attach_live_pack_provenance(model, installed, method_map, row_counts,
                                     min_rows=min_rows, tot_gptq=tot_gptq,
                                     tot_rtn=tot_rtn, assignment_hash=assign_hash,
                                     assignment_disagreements=(
                                         disagreements if assign_hash is not None else None))
    return n_layers


def enable_serve_experts_int4_calibrated(model, source_dir: str, batches, *,
                                         model_type: str | None = None,
                                         min_rows: int = 32,
                                         hessian_device="cpu",
                                         max_hessian_bytes: int | None = None,
                                         layers_per_pass: int | None = None,
                                         artifact_dir: str | None = None,
                                         expected_fingerprint: str | None = None,
                                         dump_artifact_dir: str | None = None,
                                         assignment=None) -> int:
    """Calibrate AND pack layer by layer, so the host never holds more than
    one pass's Hessians: ``calibrate_expert_hessians`` returned every
    layer's fp32 Hessians before any packing began, which for Mixtral-8x7B
    (8 experts x 14336^2 down projections, ~7 GB a layer) is ~230 GB and
    was OOM-killed inside a 170 GiB container. Each pass runs ``batches``
    over the model with the tap armed for its chunk of layers, packs those
    layers at once (GPTQ where an expert saw >= ``min_rows`` rows, RTN
    otherwise) and frees the Hessians. Later passes therefore see the
    earlier layers already on the int4 path, which is the sequential
    convention GPTQ itself uses. ``E4B_INT4_HESSIAN_BUDGET_GB`` sets the
    per-pass budget when ``max_hessian_bytes`` is not given (default 24).
    Returns the number of layers installed.

    ``expected_fingerprint`` pins a licensed pack by bytes (#405): the
    artifact at ``artifact_dir`` is verified and installed, and a
    mismatch **refuses** -- this function will not rebuild from ``batches``.
    Recipe-derived packs remain available when no fingerprint is given;
    they are unlicensed observations until their bytes pass K8 and are
    published. ``dump_artifact_dir`` writes the just-built recipe pack
    as an artifact (observation, not a licence).

    ``assignment`` (#530): a recorded gptq/rtn decision to honour instead
    of re-deriving it from this box's routing -- a path to an artifact
    dir or ``assignment.json``, or the record itself. Falls back to the
    ``E4B_INT4_ASSIGNMENT`` env (same forms) so a lane hook can pin the
    licensed split without a code change. Absent both, the recipe decides
    (unchanged behaviour). Fixes the classification only; see
    :func:`enable_serve_experts_int4`.
    """
    from .pack_manifest import (
        attach_provenance, provenance_from_model, read_assignment,
        require_artifact_for_licensed_load, token_stream_sha,
    )
    require_artifact_for_licensed_load(artifact_dir, expected_fingerprint)
    if assignment is None:
        env_src = os.environ.get("E4B_INT4_ASSIGNMENT")
        if env_src:
            assignment = env_src
    if isinstance(assignment, (str, os.PathLike)):
        assignment = read_assignment(assignment)
    if expected_fingerprint is not None:
        return enable_serve_experts_int4_from_artifact(
            model, source_dir, artifact_dir,
            expected_fingerprint=expected_fingerprint, model_type=model_type)
    import gc
    if max_hessian_bytes is None:
        max_hessian_bytes = int(float(os.environ.get("E4B_INT4_HESSIAN_BUDGET_GB", "24")) * (1 << 30))
    _plan, layer_ws = _expert_layers(model, source_dir, model_type, None)
    order = [layer for layer, _w in layer_ws]
    if not order:
        raise RuntimeError("enable_serve_experts_int4_calibrated: no expert layers")
    cfg = getattr(model, "config", None)
    if layers_per_pass is None:
        hid = getattr(cfg, "hidden_size", None)
        inter = (getattr(cfg, "moe_intermediate_size", None) or getattr(cfg, "intermediate_size", None))
        n_exp = (getattr(cfg, "num_local_experts", None) or getattr(cfg, "num_experts", None))
        if hid and inter and n_exp:
            per_layer = int(n_exp) * (int(hid) ** 2 + int(inter) ** 2) * 4
            layers_per_pass = max(1, int(max_hessian_bytes // per_layer))
        else:
            layers_per_pass = len(order)
    batches = list(batches)
    total = 0
    n_pass = 0
    for i in range(0, len(order), layers_per_pass):
        chunk = order[i:i + layers_per_pass]
        hs = calibrate_expert_hessians(model, source_dir, batches, model_type=model_type,
                                       hessian_device=hessian_device, layers_per_pass=len(chunk),
                                       only_layers=chunk)
        total += enable_serve_experts_int4(model, source_dir, model_type=model_type,
                                           expert_hessians=hs, min_rows=min_rows, layers=chunk,
                                           assignment=assignment)
        n_pass += 1
        del hs
        gc.collect()
    print(f"INT4EXP calibrated streaming: {total} layers in {n_pass} passes of <= {layers_per_pass} layer(s)", flush=True)
    rec = provenance_from_model(model)
    if rec is not None:
        rec["calibration_token_stream_sha"] = token_stream_sha(batches)
        attach_provenance(model, rec)
    if dump_artifact_dir:
        dump_calibrated_artifact(model, source_dir, dump_artifact_dir, model_type=model_type)
    return total


def _attach_live_pack_provenance(model, installed, method_map, row_counts, *,
                                 min_rows, tot_gptq, tot_rtn,
                                 assignment_hash=None, assignment_disagreements=None):
    """Fingerprint the pack that was just installed and hang the record on the model.

    Cost: every packed/scales tensor is copied to the host and sha256'd once per enable
    (seconds to tens of seconds for a 30B pack). This runs at enable time only and never
    on the per-step path; it is what lets a receipt name the bytes it measured.
    """
    from .pack_manifest import (
        PAYLOAD_DIR, attach_provenance, compute_pack_fingerprint,
        method_map_hash, payload_entry, provenance_from_model, provenance_record,
        row_count_vector_hash, tensor_payload_bytes,
    )
    payloads = []
    for layer, w in installed:
        st = getattr(w, "_int4_stores", None)
        if not st or "gu" not in st:
            continue
        for role in ("gu", "dn"):
            for kind in ("packed", "scales"):
                data = tensor_payload_bytes(st[role][kind])
                payloads.append(payload_entry(
                    f"{PAYLOAD_DIR}/layer_{int(layer):04d}_{role}_{kind}.bin", data))
    if not payloads:
        return
    rows = [{"layer": la, "expert": e, "rows": r}
            for (la, e), r in sorted(row_counts.items())]
    cfg = getattr(model, "config", None)
    revision = getattr(cfg, "_commit_hash", None)
    method_map = list(method_map)
    counts = {"gptq": tot_gptq, "rtn": tot_rtn}
    disagreements = int(assignment_disagreements or 0)
    # Streamed calibration (enable_serve_experts_int4_calibrated) calls this once PER LAYER CHUNK.
    # Before P39 each call replaced the record, so the live provenance -- and the assignment
    # payload dump_calibrated_artifact wrote from it -- described only the LAST chunk: box 1's
    # record covered 8 of 48 layers and box 2 refused to honour it ("not named by the
    # assignment"). A live record already on this model for the same checkpoint is MERGED:
    # payloads by path (this chunk's bytes win), the decision by (layer, expert, role), row
    # counts by (layer, expert), counts summed, every hash recomputed over the union -- so the
    # record after the last chunk equals what one all-at-once enable would have written.
    prev = provenance_from_model(model)
    if (prev and not prev.get("loaded_from_artifact") and prev.get("method_map") is not None
            and prev.get("model") == getattr(cfg, "_name_or_path", None)):
        by_path = {p["path"]: p for p in prev.get("component_hashes", [])}
        by_path.update({p["path"]: p for p in payloads})
        payloads = sorted(by_path.values(), key=lambda p: p["path"])
        seen = {(int(r["layer"]), int(r["expert"]), r["role"]): r for r in prev["method_map"]}
        seen.update({(int(r["layer"]), int(r["expert"]), r["role"]): r for r in method_map})
        method_map = [seen[k] for k in sorted(seen)]
        rc = {(int(r["layer"]), int(r["expert"])): r for r in prev.get("row_counts", [])}
        rc.update({(int(r["layer"]), int(r["expert"])): r for r in rows})
        rows = [rc[k] for k in sorted(rc)]
        pc = prev.get("calibrated_counts") or {}
        counts = {"gptq": int(pc.get("gptq", 0)) + tot_gptq, "rtn": int(pc.get("rtn", 0)) + tot_rtn}
        ph = prev.get("assignment_honoured") or {}
        if assignment_hash is not None and ph.get("method_map_hash") == assignment_hash:
            disagreements += int(ph.get("disagreements", 0))
    extra = {"calibrated_counts": counts,
             # the decision itself, not just its hash: dump_calibrated_artifact writes it as
             # the hashed assignment payload so a re-pack elsewhere can honour it (#530)
             "method_map": method_map,
             "row_counts": rows}
    if assignment_hash is not None:
        extra["assignment_honoured"] = {"method_map_hash": assignment_hash,
                                        "disagreements": disagreements}
    if not revision:
        # Said explicitly, never silently: this live pack cannot become a licensed artifact.
        extra["model_revision_missing"] = True
    rec = provenance_record(
        pack_fingerprint=compute_pack_fingerprint(payloads),
        component_hashes=payloads,
        method_map_hash_value=method_map_hash(method_map) if method_map else None,
        row_count_vector_hash_value=row_count_vector_hash(rows) if rows else None,
        model_id=getattr(cfg, "_name_or_path", None),
        model_revision=revision or None,
        min_rows=min_rows,
        damping=float(os.environ.get("E4B_INT4_GPTQ_DAMP", "0.01")),
        solve_device=os.environ.get("E4B_INT4_GPTQ_DEVICE", "cpu"),
        extra=extra,
    )
    attach_provenance(model, rec)


def dump_calibrated_artifact(model, source_dir: str, artifact_dir: str, *,
                             model_type: str | None = None,
                             allow_unknown_revision: bool = False) -> dict:
    """Serialise the live int4 stores as a hash-pinned artifact (observation).

    Refuses when the checkpoint revision is unknown (``config._commit_hash`` missing):
    such bytes could never pass the licensed loader, which requires the revision. Pass
    ``allow_unknown_revision=True`` (or ``E4B_INT4_DUMP_ALLOW_UNKNOWN_REVISION=1``) to write an
    observation pack that says so itself (``model_revision_missing: true``).
    """
    from .pack_manifest import provenance_from_model, require_model_revision, write_artifact
    _moe_plan, layer_ws = _expert_layers(model, source_dir, model_type, None)
    tensors = {}
    layers_meta = []
    for layer, w in layer_ws:
        st = getattr(w, "_int4_stores", None)
        if not st or "gu" not in st:
            continue
        for role in ("gu", "dn"):
            for kind in ("packed", "scales"):
                tensors[(layer, role, kind)] = st[role][kind]
        layers_meta.append({
            "index": int(layer),
            "Ngu": int(st["gu"]["N"]), "Kgu": int(st["gu"]["K"]),
            "Ndn": int(st["dn"]["N"]), "Kdn": int(st["dn"]["K"]),
            "calibrated": list(st["calibrated"]) if st.get("calibrated") else None,
        })
    if not tensors:
        raise RuntimeError("dump_calibrated_artifact: no int4 stores on the model")
    rec = provenance_from_model(model) or {}
    cfg = getattr(model, "config", None)
    allow = allow_unknown_revision or os.environ.get("E4B_INT4_DUMP_ALLOW_UNKNOWN_REVISION", "0") == "1"
    revision, revision_missing = require_model_revision(
        rec.get("model_revision") or getattr(cfg, "_commit_hash", None), allow_unknown=allow)
    meta = {
        "model_id": rec.get("model") or getattr(cfg, "_name_or_path", None),
        "model_revision": revision,
        "model_revision_missing": True if revision_missing else None,
        "min_rows": rec.get("min_rows"),
        "damping": rec.get("damping"),
        "solve_device": rec.get("solve_device"),
        "method_map_hash": rec.get("method_map_hash"),
        "row_count_vector_hash": rec.get("row_count_vector_hash"),
        "calibration_token_stream_sha": rec.get("calibration_token_stream_sha"),
        "toolchain": rec.get("toolchain"),
        "layers": layers_meta,
        "calibrated_counts": rec.get("calibrated_counts"),
    }
    assignment = None
    if rec.get("method_map"):
        assignment = {"method_map": rec["method_map"], "row_counts": rec.get("row_counts") or []}
    man = write_artifact(artifact_dir, tensors=tensors, meta=meta, assignment=assignment)
    # #772: the provenance's ``pack_fingerprint`` is the LIVE stores' (tensor payloads only);
    # the artifact's root also covers the identity and assignment payloads, so the two never
    # match. Record the root beside it -- ``pack_fingerprint`` keeps its meaning -- so an
    # attention dump and a receipt of this run can name the artifact that actually exists.
    if rec:
        from .pack_manifest import attach_provenance
        attach_provenance(model, dict(rec, pack_artifact_fingerprint=man["pack_fingerprint"]))
    return man


def enable_serve_experts_int4_from_artifact(model, source_dir: str, artifact_dir: str, *,
                                            expected_fingerprint: str,
                                            model_type: str | None = None) -> int:
    """Install a hash-pinned pack. Mismatch refuses; there is no recipe fallback."""
    import torch as _torch
    from int4_b32 import _plan

    from .pack_manifest import (
        ASSIGNMENT_PATH, LAYOUT, PackManifestError, attach_provenance, check_manifest_dims,
        int4_store_dims, load_payload_tensors, provenance_record, read_assignment, verify_artifact,
    )
    cfg = getattr(model, "config", None)
    live_rev = getattr(cfg, "_commit_hash", None)
    if not live_rev:
        raise PackManifestError(
            "licensed artifact load requires config._commit_hash on the live "
            "model (the commit the loader recorded) -- refusing")
    man = verify_artifact(
        artifact_dir,
        expected_fingerprint=expected_fingerprint,
        expected_model_revision=live_rev,
        expected_layout=LAYOUT,
    )
    tensors = load_payload_tensors(artifact_dir, man)
    layers_meta = {int(row["index"]): row for row in (man.get("layers") or [])}
    _moe_plan, layer_ws = _expert_layers(model, source_dir, model_type, None)
    keep_nf4 = os.environ.get("E4B_INT4_KEEP_NF4", "0") == "1"
    n_layers = 0
    R = _top_k(model)
    for layer, w in layer_ws:
        meta = layers_meta.get(int(layer))
        if meta is None:
            raise PackManifestError(
                f"layer {layer}: not in the artifact manifest -- refusing a partial licensed load")
        try:
            gu_p = tensors[(layer, "gu", "packed")]
            gu_s = tensors[(layer, "gu", "scales")]
            dn_p = tensors[(layer, "dn", "packed")]
            dn_s = tensors[(layer, "dn", "scales")]
        except KeyError as e:
            raise PackManifestError(
                f"layer {layer}: artifact is missing a packed tensor {e}") from e
        if not w._all_hot():
            raise RuntimeError(
                f"layer {layer} is tiered; this lane is the all-VRAM "
                "collapsed path -- use placement-override all-vram")
        # N/K come from the HASHED bytes (packed [E, N, K//2] uint8, scales [E, N, K//32]), exactly as the
        # recipe path takes them from the weight shapes; layers[] in the manifest is only a cross-check.
        for name, tt in (("gu_packed", gu_p), ("dn_packed", dn_p)):
            if tt.dtype != _torch.uint8:
                raise PackManifestError(f"layer {layer}: {name} payload is {tt.dtype}, not uint8 -- not an int4_b32 store")
        Ngu, Kgu = int4_store_dims(gu_p, gu_s)
        Ndn, Kdn = int4_store_dims(dn_p, dn_s)
        check_manifest_dims(layer, "gu", meta, Ngu, Kgu)
        check_manifest_dims(layer, "dn", meta, Ndn, Kdn)
        _b, _w2, sk_gu, _k = _plan(Ngu, Kgu)
        _b, _w2, sk_dn, _k = _plan(Ndn, Kdn)
        dev = w.h_gu_p.device
        w._int4_stores = {
            "gu": {"packed": gu_p.to(dev), "scales": gu_s.to(dev),
                   "N": Ngu, "K": Kgu,
                   "part": _torch.empty(sk_gu * R, Ngu, dtype=_torch.float32, device=dev)},
            "dn": {"packed": dn_p.to(dev), "scales": dn_s.to(dev),
                   "N": Ndn, "K": Kdn,
                   "part": _torch.empty(sk_dn * R, Ndn, dtype=_torch.float32, device=dev)},
        }
        if meta.get("calibrated"):
            w._int4_stores["calibrated"] = tuple(meta["calibrated"])
        if not keep_nf4:
            for attr in ("h_gu_p", "h_gu_a", "h_dn_p", "h_dn_a"):
                t = getattr(w, attr)
                setattr(w, attr, t.new_empty((0,) * t.dim()))
            _torch.cuda.empty_cache()
        n_layers += 1
    if n_layers == 0:
        raise PackManifestError("artifact load installed no layers")
    extra = {"calibrated_counts": man.get("calibrated_counts"), "loaded_from_artifact": True}
    if any(p.get("path") == ASSIGNMENT_PATH for p in man["payloads"]):
        # carry the recorded decision forward, so a re-dump of this load reproduces the
        # same assignment payload (and therefore the same pack_fingerprint)
        rec_a = read_assignment(artifact_dir)
        extra["method_map"] = rec_a["method_map"]
        extra["row_counts"] = rec_a["row_counts"]
    attach_provenance(model, provenance_record(
        pack_fingerprint=man["pack_fingerprint"],
        component_hashes=man["payloads"],
        method_map_hash_value=man.get("method_map_hash"),
        row_count_vector_hash_value=man.get("row_count_vector_hash"),
        calibration_token_stream_sha=man.get("calibration_token_stream_sha"),
        model_id=man.get("model_id"),
        model_revision=man.get("model_revision"),
        min_rows=man.get("min_rows"),
        damping=man.get("damping"),
        solve_device=man.get("solve_device"),
        extra=extra,
    ))
    print(f"INT4EXP licensed artifact {man['pack_fingerprint']} "
          f"installed on {n_layers} layers", flush=True)
    return n_layers

